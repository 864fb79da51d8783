"""Where a spec may put a disk or a file on the node: never over or into the system's own
directories, never into the kernel's pseudo-filesystems."""

from __future__ import annotations

# The kernel's files: reading one as a certificate can block nginx forever (/dev/zero), and
# nothing of tpgen's is ever mounted or written there.
PSEUDO_TREES = ("/dev", "/proc", "/sys")
# The system's own trees: a disk mounted there hides what the node boots, logs in and installs
# packages with; nginx's master, root, would append its log to any file in them.
SYSTEM_TREES = (
    *PSEUDO_TREES,
    "/bin",
    "/boot",
    "/etc",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/root",
    "/run",
    "/sbin",
    "/usr",
    "/var/backups",
    "/var/cache/apt",
    "/var/cache/debconf",
    "/var/lib/apt",
    "/var/lib/dpkg",
    "/var/lib/systemd",
    "/var/log",
    "/var/mail",
    "/var/spool",
)
# Directories whose contents a disk mounted on them would hide; below them a disk may go.
SHARED_DIRS = ("/home", "/media", "/opt", "/tmp", "/var/lib", "/var/tmp")
# Where access logs belong: the one system tree a log file may be in.
LOG_TREE = "/var/log"
NGINX_LOGS = "/var/log/nginx"  # Debian's nginx package's, and its logrotate's
NGINX_ERROR_LOG = f"{NGINX_LOGS}/error.log"
NGINX_CONF = "/etc/nginx/nginx.conf"
# The distribution's map of media types (Debian's nginx-common), which the config includes.
NGINX_MIME_TYPES = "/etc/nginx/mime.types"
NGINX_PID = "/run/nginx.pid"
# The files of nginx's own that the config names or tpgen writes: never a certificate, key or
# snippet (nginx would read its own config, log or pid as a PEM or as directives).
NGINX_FILES = {
    NGINX_CONF: "the config tpgen renders",
    NGINX_MIME_TYPES: "the media types the config includes",
    NGINX_PID: "nginx's pid file",
    NGINX_ERROR_LOG: "nginx's error log",
}
# Debian's links to /run (base-files, Debian 12 and 13): the rules read a path through them, or
# /var/run/nginx.pid passed as a log and a disk mounted at /var/run/x landed in /run.
LINKED_TREES = {"/var/run": "/run", "/var/lock": "/run/lock"}


# Directories every node has: a path naming one names no file.
KNOWN_DIRS = (
    "/",
    *SYSTEM_TREES,
    *SHARED_DIRS,
    "/srv",
    "/mnt",
    "/var",
    "/var/cache",
    *LINKED_TREES.values(),
    "/etc/nginx",
    NGINX_LOGS,
)


def _through_links(path: str) -> tuple[str, str]:
    """The path the node opens for `path`, and how a message names `path`."""
    for link, target in LINKED_TREES.items():
        if is_within(path, link):
            real = target + path[len(link) :]
            return real, f"{path} (that is {real}: {link} is a link to {target})"
    return path, path


def is_within(path: str, tree: str) -> bool:
    """`path` is `tree` or below it (whole path parts: /etcetera is not within /etc)."""
    return path == tree or path.startswith(tree + "/")


def _tree_of(path: str, trees: tuple[str, ...]) -> str | None:
    return next((tree for tree in trees if is_within(path, tree)), None)


def mount_problem(path: str) -> str | None:
    """Why a disk cannot be mounted at `path` (None: it can)."""
    real, shown = _through_links(path)
    tree = _tree_of(real, SYSTEM_TREES)
    if tree:
        return f"{shown} is in the system's {tree}: mount data disks elsewhere, e.g. /srv/cache/d1"
    hidden = [kept for kept in (*SYSTEM_TREES, *SHARED_DIRS) if is_within(kept, path)]
    if path == "/" or hidden:
        return (
            f"a disk mounted at {path} would hide what {hidden[0] if hidden else '/'} holds: "
            "mount each disk at a directory of its own, e.g. /srv/cache/d1"
        )
    return None


def log_problem(path: str) -> str | None:
    """Why nginx's master (root) must not append its access log to `path` (None: it may)."""
    real, shown = _through_links(path)
    if real in KNOWN_DIRS:
        return f"{shown} is a directory: name the log file, e.g. {NGINX_LOGS}/access.log"
    tree = _tree_of(real, tuple(t for t in SYSTEM_TREES if t != LOG_TREE))
    if tree:
        return (
            f"{shown} is in the system's {tree}, which nginx (root) would append to: "
            f"keep logs in {LOG_TREE}, e.g. {NGINX_LOGS}/access.log"
        )
    return None


def read_problem(path: str) -> str | None:
    """Why nginx must not read a certificate, key or snippet from `path` (None: it may)."""
    real, shown = _through_links(path)
    tree = _tree_of(real, PSEUDO_TREES)
    if tree:
        return f"{shown} is in the kernel's {tree}, not a file: name a regular file, e.g. in /etc"
    if real in KNOWN_DIRS:
        return f"{shown} is a directory: name the file in it"
    if real in NGINX_FILES:
        return f"{shown} is {NGINX_FILES[real]}: name a file of its own"
    return None
