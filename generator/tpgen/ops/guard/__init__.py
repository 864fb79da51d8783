"""`tpgen guard`, the node agent that takes a failing disk out of service by itself.

Standard library and tpgen.files (the one rule for the files a user names: a FIFO, a device,
a link or the spec is refused, never opened, renamed or replaced): the detectors read nginx's
error log, the kernel log, the mount table and /proc/diskstats; ``decide`` turns their evidence
into at most one action per poll under the rules of DESIGN §7 (one disk per rate window, never
the last active disk, a cluster of disks is reported, not emptied); ``state`` and ``events``
are the two files the agent writes. Rendering and reloading need the planner, so
``tpgen.commands.guard`` hands the agent a function that does it.

- ``policy``    the thresholds (the plan's GuardPlan values)
- ``detect``    one detector per source, each turning text into :class:`Evidence`
- ``diskstats`` per-disk read latency and the slow-disk rule
- ``decide``    the pure rules
- ``state``     /var/lib/tpgen/guard-state.json, written atomically, a corrupt one set aside
- ``events``    /var/lib/tpgen/events.jsonl, one JSON line per decision with its evidence
- ``agent``     one poll: read the sources, decide, record, apply
"""

from __future__ import annotations
