"""The node spec: what an operator writes. Field rules live here; cross-field rules in rules.py."""

from __future__ import annotations

import ipaddress
import re
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, PlainSerializer

from tpgen.units import check_nginx_time, parse_size

# Everything below ends up inside nginx.conf: each pattern keeps out ; { } quotes, spaces and $.
HOSTNAME_RE = r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$"
DISK_NAME_RE = r"^[a-z][a-z0-9_]{0,31}$"
DEVICE_RE = r"^/dev/[A-Za-z0-9][A-Za-z0-9/_.:+-]*$"
MOUNT_RE = r"^(/[A-Za-z0-9._-]+)+$"
USER_RE = r"^[a-z_][a-z0-9_-]{0,31}$"
# Variables and a few literal characters: enough for any cache key, never a directive.
CACHE_KEY_RE = r"^(\$[a-z_][a-z0-9_]*|[A-Za-z0-9/:._-])+$"
ALLOWED_BUCKETS = (100, 200, 250, 400, 500, 1000, 2000, 2500, 5000, 10000)


def _size_schema(description: str) -> dict[str, object]:
    return {
        "anyOf": [
            {"type": "integer", "minimum": 0},
            {"type": "string", "pattern": r"^\s*\d+(\.\d+)?\s*([kmgtpKMGTP]i?)?[bB]?\s*$"},
        ],
        "description": description,
    }


Size = Annotated[
    int,
    BeforeValidator(parse_size),
    PlainSerializer(int, return_type=int),
    Field(json_schema_extra=_size_schema("bytes, or a number with a unit: 4TB, 48GiB, 512KiB")),
]


def _no_dotdot(path: str) -> str:
    if "/../" in f"{path}/" or "/./" in f"{path}/":
        raise ValueError("must be a normalised absolute path (no . or .. parts)")
    return path.rstrip("/") or "/"


def _is_ip(text: str) -> str:
    try:
        ipaddress.ip_address(text)
    except ValueError as err:
        raise ValueError(
            f"{text!r} is not an IP address (write e.g. 0.0.0.0, 127.0.0.1, ::)"
        ) from err
    return text


def _upstream(text: str) -> str:
    match = re.fullmatch(r"(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})", text)
    if not match:
        raise ValueError(f"{text!r} is not host:port (write e.g. origin-a.example.net:8080)")
    host, port = match.groups()
    if host.startswith("["):
        _is_ip(host[1:-1])
    elif not re.fullmatch(HOSTNAME_RE, host.lower()):
        raise ValueError(f"{host!r} is not a valid host name")
    if not 1 <= int(port) <= 65535:
        raise ValueError(f"port {port} is out of range 1..65535")
    return text


def _loopback(text: str) -> str:
    if not ipaddress.ip_address(_is_ip(text)).is_loopback:
        raise ValueError("stub_status must stay on loopback: use 127.0.0.1 or ::1")
    return text


def _buckets(value: int) -> int:
    if value not in ALLOWED_BUCKETS:
        raise ValueError(
            f"{value} does not divide nginx's 10000 split_clients steps: use one of "
            + ", ".join(map(str, ALLOWED_BUCKETS))
        )
    return value


IpAddress = Annotated[str, AfterValidator(_is_ip)]
Port = Annotated[int, Field(ge=1, le=65535)]
NginxTime = Annotated[str, AfterValidator(check_nginx_time)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=False)


class Node(Strict):
    name: Annotated[str, Field(pattern=HOSTNAME_RE, max_length=253, description="host name")]
    cores: Annotated[int, Field(ge=1, le=1024, description="CPU cores nginx may use")]
    memory: Annotated[Size, Field(description="RAM of the node")]


class Workload(Strict):
    type: Literal["cache", "origin", "vod"] = Field(
        description="cache: caching reverse proxy; origin: serves files on the disks; "
        "vod: large media files on the disks, read with directio"
    )
    upstreams: list[Annotated[str, AfterValidator(_upstream)]] = Field(
        default_factory=list, description="origin servers host:port (cache workload only)"
    )
    avg_object_size: Size | None = Field(
        default=None, description="average object size; sizes the keys_zone"
    )
    cache_key: Annotated[str, Field(pattern=CACHE_KEY_RE)] | None = Field(
        default=None, description="cache key, also the key that picks the disk"
    )
    inactive: NginxTime | None = Field(
        default=None, description="evict cached objects not used for this long"
    )


class Listen(Strict):
    address: IpAddress = "0.0.0.0"
    port: Port = 80


class Status(Strict):
    address: Annotated[str, AfterValidator(_loopback)] = "127.0.0.1"
    port: Port = 8081


class Disk(Strict):
    name: Annotated[str, Field(pattern=DISK_NAME_RE, description="short name: d1, hdd07")]
    device: Annotated[str, Field(pattern=DEVICE_RE, description="block device, /dev/...")]
    mount: Annotated[str, Field(pattern=MOUNT_RE), AfterValidator(_no_dotdot)]
    size: Size
    media: Literal["hdd", "ssd", "nvme"]
    state: Literal["active", "draining", "failed"] = "active"
    weight: Annotated[float, Field(gt=0, le=1e6)] | None = Field(
        default=None, description="share of keys; default proportional to size"
    )
    filesystem: Literal["xfs", "ext4"] = "xfs"
    thread_pool: bool | None = Field(
        default=None, description="force a thread pool on (or off) for this disk"
    )


class Tuning(Strict):
    """Overrides of derived values; each one replaces the rule `tpgen explain` shows."""

    user: Annotated[str, Field(pattern=USER_RE)] | None = None
    worker_processes: Annotated[int, Field(ge=1, le=1024)] | Literal["auto"] | None = None
    worker_connections: Annotated[int, Field(ge=16, le=1_048_576)] | None = None
    worker_rlimit_nofile: Annotated[int, Field(ge=64, le=16_777_216)] | None = None
    sendfile_max_chunk: Size | None = None
    threads_per_disk: Annotated[int, Field(ge=1, le=512)] | None = None
    max_queue: Annotated[int, Field(ge=1, le=16_777_216)] | None = None
    headroom_percent: Annotated[float, Field(ge=0, lt=90)] | None = None
    min_free_percent: Annotated[float, Field(ge=0, lt=50)] | None = None
    keys_zone_ram_percent: Annotated[float, Field(gt=0, le=75)] | None = None
    buckets: Annotated[int, AfterValidator(_buckets)] | None = None
    directio: Size | None = None
    output_buffers: Size | None = None
    open_file_cache_max: Annotated[int, Field(ge=0, le=10_000_000)] | None = None
    keepalive_timeout: NginxTime | None = None


class NodeSpec(Strict):
    """One storage node: its hardware, its workload and its disks."""

    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        title="tpgen node spec",
        json_schema_extra={"$id": "https://tpgen.dev/schemas/node-spec.schema.json"},
    )

    node: Node
    workload: Workload
    disks: Annotated[list[Disk], Field(min_length=1, max_length=256)]
    listen: Listen = Field(default_factory=Listen)
    status: Status = Field(default_factory=Status)
    tuning: Tuning = Field(default_factory=Tuning)
