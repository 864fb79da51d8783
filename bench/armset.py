"""Write the config of every arm of a run into its own prefix.

Beside the built-in arms, a run can add variants: a config file with placeholders (an edited copy
of the tpgen.conf.template a run leaves), tpgen itself rendering the spec with `tuning:`
overrides, which is how a proposed rule change is measured before it is made, or tpgen's config
with literal edits (an ablation that works in every regime pair, whatever its disks and workers)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from tpgen.api import load_plan

from bench import arms as armconf
from bench import sysctls as node_sysctls
from bench import tpgencli
from bench.arms import Arm
from bench.system import BenchError, cpu_count


@dataclass(frozen=True)
class Variant:
    """An extra arm: `template` (a config file), `tuning` (spec overrides for tpgen) or `edits`
    (text replacements in tpgen's rendered config)."""

    name: str
    template: Path | None = None
    tuning: dict[str, str] = field(default_factory=dict)
    edits: tuple[tuple[str, str], ...] = ()
    sysctls: dict[str, str] = field(default_factory=dict)  # instead of the plan's values
    read_ahead_kb: int | None = None  # every disk's, exactly, instead of the plan's floors

    @property
    def title(self) -> str:
        if self.template is not None:
            return f"config file {self.template}"
        if self.edits:
            return "tpgen render, edited: " + ", ".join(f"{a!r} -> {b!r}" for a, b in self.edits)
        if self.sysctls:
            return "tpgen render, node sysctls: " + ", ".join(
                f"{k}={v}" for k, v in self.sysctls.items()
            )
        if self.read_ahead_kb is not None:
            return f"tpgen render, every disk reading ahead {self.read_ahead_kb} KiB"
        return "tpgen render, tuning: " + ", ".join(f"{k}={v}" for k, v in self.tuning.items())


def edited(conf: str, edits: tuple[tuple[str, str], ...]) -> str:
    """`conf` with every edit applied; an edit that matches nothing would measure tpgen twice
    under another name, so it is an error."""
    for old, new in edits:
        if old not in conf:
            raise BenchError(f"edit {old!r} -> {new!r}: {old!r} is not in tpgen's config")
        conf = conf.replace(old, new)
    return conf


@dataclass(frozen=True)
class Context:
    workdir: Path
    out_dir: Path
    spec: tpgencli.SpecFile
    storage: Path
    port: int
    status_port: int
    workers: int = 0  # worker_processes of every arm; 0: one per CPU
    where: dict[str, str] = field(default_factory=dict)  # URI -> disk, for the perdisk arm


def _placeholders(ctx: Context, prefix: Path) -> dict[str, str]:
    return {
        "PORT": str(ctx.port),
        "STATUS_PORT": str(ctx.status_port),
        "STORAGE": str(ctx.storage),
        "MNT": str(ctx.workdir / "mnt"),
        "PREFIX": str(prefix),
    }


def as_template(conf: str, values: dict[str, str]) -> str:
    """`conf` with each of `values` as its `@NAME@` placeholder, the longest value first: no path
    is taken for a shorter one it starts with (the arm's prefix starts with the work dir)."""
    for key, value in sorted(values.items(), key=lambda kv: -len(kv[1])):
        conf = conf.replace(value, f"@{key}@")
    return conf


@dataclass(frozen=True)
class NodeSettings:
    """What tpgen's plan sets on the node besides nginx.conf."""

    sysctls: tuple[node_sysctls.Setting, ...] = ()
    read_ahead: tuple[node_sysctls.ReadAhead, ...] = ()


def _tpgen_conf(
    ctx: Context, name: str, prefix: Path, tuning: dict[str, str]
) -> tuple[str, NodeSettings]:
    """tpgen's config for the spec with `tuning`, and the node settings its plan decides."""
    spec = ctx.workdir / f"spec-{name}.yaml"
    spec.write_text(ctx.spec.text(tuning))
    rendered = tpgencli.render(spec, ctx.workdir / f"{name}-rendered.conf")
    plan = load_plan(str(spec))
    node = NodeSettings(node_sysctls.plan_sysctls(plan), node_sysctls.plan_read_ahead(plan))
    return armconf.relocate(rendered, prefix), node


def build(names: tuple[str, ...], variants: list[Variant], ctx: Context) -> list[Arm]:
    """Arms in run order: the built-in `names`, then the variants."""
    made: dict[str, Arm] = {}
    by_name = {v.name: v for v in variants}
    clash = set(by_name) & {*armconf.TITLES, *names}
    if clash:
        raise BenchError(f"variant names clash with built-in arms: {sorted(clash)}")
    for name in [*names, *by_name]:
        if name == "floor":
            continue  # the tpgen config without the cold load, see below
        prefix = ctx.workdir / "arms" / name
        prefix.mkdir(parents=True, exist_ok=True)
        values = _placeholders(ctx, prefix)
        if name in by_name:
            conf, node = _variant_conf(ctx, by_name[name], prefix, values)
        else:
            conf, node = _built_in_conf(ctx, name, prefix, values)
        (prefix / "nginx.conf").write_text(conf)
        title = by_name[name].title if name in by_name else armconf.TITLES[name]
        made[name] = Arm(name, prefix / "nginx.conf", True, title, node.sysctls, node.read_ahead)
    if "floor" in names:
        made["floor"] = _floor(made)
    return [made[name] for name in [*names, *by_name]]


def _built_in_conf(
    ctx: Context, name: str, prefix: Path, values: dict[str, str]
) -> tuple[str, NodeSettings]:
    workers = ctx.workers or cpu_count()
    if name in armconf.SINGLE_ROOT:
        conf = armconf.single_root_conf(
            name, workers=workers, prefix=prefix, port=ctx.port, storage=ctx.storage
        )
        return conf, NodeSettings()
    if name == "perdisk":
        conf = armconf.perdisk_conf(
            workers=workers,
            prefix=prefix,
            port=ctx.port,
            mnt=ctx.workdir / "mnt",
            where=ctx.where,
        )
        return conf, NodeSettings()
    if name == "tpgen":
        conf, node = _tpgen_conf(ctx, name, prefix, {})
        (ctx.out_dir / "tpgen.conf.template").write_text(as_template(conf, values))
        return conf, node
    raise BenchError(f"unknown arm {name!r}: built-in arms are {sorted(armconf.TITLES)}")


def _variant_conf(
    ctx: Context, variant: Variant, prefix: Path, values: dict[str, str]
) -> tuple[str, NodeSettings]:
    if variant.template is not None:
        return armconf.substitute(variant.template.read_text(), values), NodeSettings()
    conf, node = _tpgen_conf(ctx, variant.name, prefix, variant.tuning)
    conf = edited(conf, variant.edits)
    node = NodeSettings(
        node_sysctls.overridden(node.sysctls, variant.sysctls),
        node_sysctls.every_disk([d.device for d in ctx.spec.disks], variant.read_ahead_kb)
        or node.read_ahead,
    )
    return conf, node


def _floor(made: dict[str, Arm]) -> Arm:
    if "tpgen" not in made:
        raise BenchError("the floor arm needs the tpgen arm")
    tpgen = made["tpgen"]
    return Arm("floor", tpgen.conf, False, armconf.TITLES["floor"], tpgen.sysctls, tpgen.read_ahead)
