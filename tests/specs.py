"""Small spec builders shared by the tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


def disk(index: int, **overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": f"d{index}",
        "device": f"/dev/loop{index}" if index < 8 else f"/dev/disk{index}",
        "mount": f"/srv/cache/d{index}",
        "size": "4TB",
        "media": "hdd",
    }
    base.update(overrides)
    return base


def spec(kind: str = "cache", disks: int = 3, **sections: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "node": {"name": "node-1", "cores": 8, "memory": "32GiB"},
        "workload": {"type": kind},
        "disks": [disk(i) for i in range(1, disks + 1)],
    }
    if kind == "cache":
        data["workload"]["upstreams"] = ["origin.example.net:8080"]
    for key, value in sections.items():
        if isinstance(value, dict) and isinstance(data.get(key), dict):
            data[key] = {**data[key], **value}
        else:
            data[key] = value
    return data


def write_spec(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path
