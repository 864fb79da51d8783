"""Probe the local host and draft a node spec (``tpgen discover``).

The work is done by pure functions over text: :func:`parse_lsblk` (``lsblk -J -b`` output),
:func:`parse_meminfo` (``/proc/meminfo``), :func:`discover` (the choice of disks, each with its
reason), :func:`render_draft` (a commented YAML draft) and :func:`vetted` (a disk the draft
cannot hold skipped, by the validator the command hands in). :func:`probe_host` is the only
function that touches the machine and :func:`run_discover` the only one that prints.

Rules, in order, for each top-level block device (the first that matches decides):

1. not a whole disk (``type`` other than ``disk``; ``loop`` only with ``include_loop``) - skipped;
2. RAM-backed (``zram*``, ``ram*``) or USB-attached - skipped;
3. it (or a partition/volume on it) is mounted: ``/`` - "root disk"; another system mount point
   (``/boot``, ``/usr``, ``/var``, ``[SWAP]``...) - "system partitions"; a mount under the cache
   root (``/srv/cache`` by default) - kept as an existing tpgen disk, mount unchanged; anything
   else - "in use";
4. it holds partitions, LVM or RAID members - skipped (tpgen uses whole disks);
5. smaller than ``min_size`` - skipped;
6. it holds a filesystem other than xfs/ext4 - skipped (never proposes to wipe data);
7. otherwise used: ``media`` is ``hdd`` when rotational, ``nvme`` for NVMe, else ``ssd``.
"""

from __future__ import annotations

from .decide import (
    CACHE_FILESYSTEMS,
    DEFAULT_MIN_SIZE,
    DEFAULT_MOUNT_ROOT,
    DRAFT_UPSTREAM,
    Discovery,
    DiskChoice,
    Skipped,
    classify_media,
    discover,
    sanitize_node_name,
)
from .devices import LSBLK_COLUMNS, BlockDevice, DiscoverError, parse_lsblk
from .draft import render_draft, yaml_scalar
from .host import HostProbe, discover_host, parse_meminfo, probe_host, run_discover
from .sizes import GIB, MIB, format_memory, format_size, human_size
from .vet import DraftCheck, vetted

__all__ = [
    "CACHE_FILESYSTEMS",
    "DEFAULT_MIN_SIZE",
    "DEFAULT_MOUNT_ROOT",
    "DRAFT_UPSTREAM",
    "GIB",
    "LSBLK_COLUMNS",
    "MIB",
    "BlockDevice",
    "DiscoverError",
    "Discovery",
    "DiskChoice",
    "DraftCheck",
    "HostProbe",
    "Skipped",
    "classify_media",
    "discover",
    "discover_host",
    "format_memory",
    "format_size",
    "human_size",
    "parse_lsblk",
    "parse_meminfo",
    "probe_host",
    "render_draft",
    "run_discover",
    "sanitize_node_name",
    "vetted",
    "yaml_scalar",
]
