"""Health checks of one storage node (``tpgen doctor``, and the Ansible module ``tpgen_doctor``).

One module per concern; every check is a pure function from text or numbers to
:class:`Finding` objects (check name, level ok|warn|fail, message, the fix):

- ``layout``       the inputs: the plan's NodeLayout dict, checked once
- ``nginx_build``  ``nginx -V`` (``--with-threads``)
- ``mounts``       /proc/self/mountinfo: each disk mounted at its place, from its device, rw
- ``space``        free space and inodes, a writable cache directory owned by the nginx user
- ``readahead``    each HDD's read-ahead at least the plan's floor
- ``drift``        the live config against the rendered one (text or sha1)
- ``errorlog``     queue overflows, full keys zones, disk errors since a time
- ``stub_status``  nginx answers and drops no connection
- ``system``       :class:`HostSystem`, the only code that reads the machine (tests fake it)
- ``diagnose``     every check in report order; ``report`` the text table and the JSON
- ``run``          print the report, or return it (the Ansible module)
- ``prometheus``   the checks as Prometheus series (``--prometheus``, the metrics timer)

``tpgen doctor SPEC`` (the spec turned into its layout) is tpgen.commands.doctor.
Every module imports only the standard library, ``tpgen.spec.units``
(relatively) and its siblings, so that the Ansible module ``tpgen_doctor`` ships this very code
to a node that has python3 and nothing else (plugins/module_utils/tpgen mirrors those modules by
symlink; docs/operations.md says why).
Exit code (and ``status`` in the JSON): 0 every check ok, 1 a warning, 2 a failure.
"""

from __future__ import annotations

from .diagnose import diagnose
from .drift import check_drift, normalize_config
from .errorlog import DEFAULT_SINCE, LogCounts, check_log, parse_since, scan_error_log
from .findings import DoctorError, Finding, Level, worst
from .layout import (
    DEFAULT_CONFIG,
    GUARD_STATE_FILE,
    DoctorInputs,
    Layout,
    LayoutDisk,
    read_layout,
    with_endpoints,
)
from .mounts import MountEntry, check_mount, mount_at, parse_mountinfo
from .nginx_build import NginxBuild, check_threads, parse_nginx_v
from .prometheus import metrics_text, write_textfile
from .readahead import check_read_ahead
from .report import JSON_SCHEMA_ID, report_json, report_text
from .run import node_report, run_doctor
from .space import FsUsage, check_space, check_writable
from .stub_status import StubStatus, check_status, parse_stub_status
from .system import HostSystem, System, open_regular, read_ahead_of

__all__ = [
    "DEFAULT_CONFIG",
    "DEFAULT_SINCE",
    "GUARD_STATE_FILE",
    "JSON_SCHEMA_ID",
    "DoctorError",
    "DoctorInputs",
    "Finding",
    "FsUsage",
    "HostSystem",
    "Layout",
    "LayoutDisk",
    "Level",
    "LogCounts",
    "MountEntry",
    "NginxBuild",
    "StubStatus",
    "System",
    "check_drift",
    "check_log",
    "check_mount",
    "check_read_ahead",
    "check_space",
    "check_status",
    "check_threads",
    "check_writable",
    "diagnose",
    "metrics_text",
    "mount_at",
    "node_report",
    "normalize_config",
    "open_regular",
    "parse_mountinfo",
    "parse_nginx_v",
    "parse_since",
    "parse_stub_status",
    "read_ahead_of",
    "read_layout",
    "report_json",
    "report_text",
    "run_doctor",
    "scan_error_log",
    "with_endpoints",
    "worst",
    "write_textfile",
]
