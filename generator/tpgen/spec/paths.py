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
# Directories every node has: a path naming one names no file.
KNOWN_DIRS = (
    "/",
    *SYSTEM_TREES,
    *SHARED_DIRS,
    "/srv",
    "/mnt",
    "/var",
    "/var/cache",
    "/etc/nginx",
    NGINX_LOGS,
)


def is_within(path: str, tree: str) -> bool:
    """`path` is `tree` or below it (whole path parts: /etcetera is not within /etc)."""
    return path == tree or path.startswith(tree + "/")


def _tree_of(path: str, trees: tuple[str, ...]) -> str | None:
    return next((tree for tree in trees if is_within(path, tree)), None)


def mount_problem(path: str) -> str | None:
    """Why a disk cannot be mounted at `path` (None: it can)."""
    tree = _tree_of(path, SYSTEM_TREES)
    if tree:
        return f"{path} is in the system's {tree}: mount data disks elsewhere, e.g. /srv/cache/d1"
    hidden = [kept for kept in (*SYSTEM_TREES, *SHARED_DIRS) if is_within(kept, path)]
    if path == "/" or hidden:
        return (
            f"a disk mounted at {path} would hide what {hidden[0] if hidden else '/'} holds: "
            "mount each disk at a directory of its own, e.g. /srv/cache/d1"
        )
    return None


def log_problem(path: str) -> str | None:
    """Why nginx's master (root) must not append its access log to `path` (None: it may)."""
    if path in KNOWN_DIRS:
        return f"{path} is a directory: name the log file, e.g. {NGINX_LOGS}/access.log"
    tree = _tree_of(path, tuple(t for t in SYSTEM_TREES if t != LOG_TREE))
    if tree:
        return (
            f"{path} is in the system's {tree}, which nginx (root) would append to: "
            f"keep logs in {LOG_TREE}, e.g. {NGINX_LOGS}/access.log"
        )
    return None


def read_problem(path: str) -> str | None:
    """Why nginx must not read a certificate, key or snippet from `path` (None: it may)."""
    tree = _tree_of(path, PSEUDO_TREES)
    if tree:
        return f"{path} is in the kernel's {tree}, not a file: name a regular file, e.g. in /etc"
    if path in KNOWN_DIRS:
        return f"{path} is a directory: name the file in it"
    if path in NGINX_FILES:
        return f"{path} is {NGINX_FILES[path]}: name a file of its own"
    return None
