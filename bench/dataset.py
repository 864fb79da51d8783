"""The data set: many large files spread over the disks, one of them the hot file.

tpgen decides which disk holds which URI. The single-root arms (stock, handwritten) see the same
files through a tree of symlinks, like the article's one /storage volume over all disks."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from bench.loopdisk import LoopDisk

HOT_URI = "/files/hot.bin"


@dataclass(frozen=True)
class Dataset:
    hot_uri: str
    cold_uris: tuple[str, ...]
    uri_list: Path  # the cold URIs, one per line, for lua/cold.lua
    storage: Path  # symlink root for the single-root arms
    files_on: dict[str, int]  # disk name -> number of files
    file_size: int


def uris(count: int) -> tuple[str, list[str]]:
    """The hot URI and `count` cold URIs."""
    return HOT_URI, [f"/files/{i:05d}.bin" for i in range(count)]


def data_dir(disk: LoopDisk) -> Path:
    """Where tpgen's origin config serves a disk's files from (docs/spec.md)."""
    return disk.mount / "data"


def build(
    workdir: Path,
    disks: list[LoopDisk],
    where: dict[str, str],
    hot_uri: str,
    cold_uris: list[str],
    file_size: int,
) -> Dataset:
    """Write every file on the disk `where` names for it; link it from the symlink root."""
    by_name = {disk.name: disk for disk in disks}
    storage = workdir / "storage"
    pattern = os.urandom(file_size)  # content is irrelevant, it only has to be really written
    files_on = dict.fromkeys(by_name, 0)
    for uri in [hot_uri, *cold_uris]:
        disk = by_name[where[uri]]
        target = data_dir(disk) / uri.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("wb") as fh:
            header = uri.encode().ljust(64, b"\0")
            fh.write(header)
            fh.write(pattern[len(header) :])
        target.chmod(0o644)
        link = storage / uri.lstrip("/")
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(target)
        files_on[disk.name] += 1
    uri_list = workdir / "cold-uris.txt"
    uri_list.write_text("".join(f"{uri}\n" for uri in cold_uris))
    for disk in disks:  # nginx workers run as www-data
        for path in [disk.mount, *data_dir(disk).rglob("*")]:
            if path.is_dir():
                path.chmod(0o755)
    return Dataset(
        hot_uri=hot_uri,
        cold_uris=tuple(cold_uris),
        uri_list=uri_list,
        storage=storage,
        files_on=files_on,
        file_size=file_size,
    )


def warm_metadata(data: Dataset) -> None:
    """stat() every file through its symlink: dentries and inodes in memory, data still cold.

    The article's node held 256 GB of data but only 64k files: their inodes stay cached while
    their data cannot. Without this, nginx's open() reads inodes from the throttled disk on the
    event loop, which no thread pool covers (see docs/benchmark.md, "cold metadata").
    The bench process does the reads, outside nginx's cgroups, so they are not throttled and the
    inodes are not charged to nginx's memory limit."""
    for uri in (data.hot_uri, *data.cold_uris):
        (data.storage / uri.lstrip("/")).stat()
