# Action plugin: render a node's nginx.conf with the tpgen package on the controller
# and install it on the node through the copy action (validate, check mode, diff).
"""Render a tpgen spec on the controller and install the result on the node."""

from __future__ import annotations

import base64
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Mapping
from typing import Any

from ansible import constants as C
from ansible.module_utils.common.text.converters import to_bytes
from ansible.plugins.action import ActionBase

# Arguments this plugin consumes; everything else goes to the copy action untouched.
_OWN_ARGS = ("spec", "dest", "previous", "source", "render_only", "tls_files")

_ARGUMENT_SPEC: dict[str, Any] = {
    "spec": {"type": "dict", "required": True},
    "tls_files": {"type": "dict", "default": {}},
    "dest": {"type": "path"},
    "previous": {"type": "path"},
    "source": {"type": "str"},
    "render_only": {"type": "bool", "default": False},
    "validate": {"type": "str"},
    "owner": {"type": "str"},
    "group": {"type": "str"},
    "mode": {"type": "raw", "default": "0644"},
}


def _import_tpgen() -> Any:
    """Import tpgen.api from the controller's Python or explain how to get it there."""
    try:
        from tpgen import api  # pylint: disable=import-outside-toplevel
    except ImportError as exc:
        raise RuntimeError(
            f"the tpgen package is not importable from the Python that runs Ansible "
            f"({sys.executable}): {exc}. The collection tpgen.storage needs it on the "
            f"controller (its requirements.txt): install it into that environment "
            f"(pip install -r <collection>/requirements.txt, or pip install -e <repo>) "
            f"or run ansible from the repo's .venv."
        ) from exc
    return api


def render(
    spec: dict[str, Any],
    source: str,
    certificates: Callable[[Any], Mapping[str, str]] | None = None,
) -> dict[str, Any]:
    """Render a spec mapping with tpgen; raise tpgen's SpecError when the spec is invalid.

    ``certificates``: given the parsed spec, where its certificate files can be read here
    (node path -> local path); the plan learns what they say (their OCSP responders).
    Returns the config text and the node layout of its plan (a JSON-safe dict).
    """
    api = _import_tpgen()
    node_spec = api.spec_from_mapping(api.plain_data(spec, source), source=source)
    files = certificates(node_spec) if certificates is not None else {}
    plan = api.make_plan(node_spec, source, certificates=api.tls_file_facts(node_spec, files))
    text = api.render_config(plan, source)
    # The node's build (nginx.configure, from its nginx -V) must have what the config uses.
    unbuilt = api.unbuilt_config_problems(node_spec, text, source)
    if unbuilt:
        raise api.SpecError(unbuilt)
    return {"text": text, "layout": api.node_layout(plan, text).to_dict()}


def _may_staple(node_spec: Any) -> bool:
    """Only OCSP stapling reads the certificates: no tls, stapling off or no resolver, none."""
    tls = node_spec.tls
    return tls is not None and tls.ocsp_stapling != "off" and bool(node_spec.workload.resolver)


class ActionModule(ActionBase):  # type: ignore[misc]  # ansible-core ships no type hints
    """Render with tpgen, save the live config as the previous one, copy the new one."""

    TRANSFERS_FILES = True

    def run(self, tmp: Any = None, task_vars: dict[str, Any] | None = None) -> dict[str, Any]:
        task_vars = task_vars or {}
        result: dict[str, Any] = super().run(tmp, task_vars)
        del tmp

        args = self.validate_argument_spec(argument_spec=_ARGUMENT_SPEC)[1]
        hostname = task_vars.get("inventory_hostname", "<host>")
        source = args["source"] or f"tpgen_spec of {hostname}"

        try:
            api = _import_tpgen()
        except RuntimeError as exc:
            return {**result, "failed": True, "msg": str(exc)}

        local_tempdir = tempfile.mkdtemp(dir=C.DEFAULT_LOCAL_TMP)
        try:
            rendered = render(
                args["spec"],
                source,
                lambda node_spec: self._certificates(
                    node_spec, args["tls_files"], task_vars, local_tempdir
                ),
            )
        except api.SpecError as exc:
            problems = str(exc).splitlines()
            return {
                **result,
                "failed": True,
                "msg": "tpgen rejected the spec (nothing was changed on the node):\n" + str(exc),
                "tpgen_errors": problems,
            }
        except (api.TpgenError, api.UnsafeValue) as exc:
            # A file tpgen refuses (a certificate), or a value the renderer would not write: a
            # failed task that says so, not an "unhandled exception" with a traceback. Any
            # other ValueError is a bug and keeps its traceback.
            report = exc.report() if isinstance(exc, api.TpgenError) else f"tpgen: {exc}"
            return {
                **result,
                "failed": True,
                "msg": f"{report} (nothing was changed on the node)",
            }
        finally:
            shutil.rmtree(to_bytes(local_tempdir, errors="surrogate_or_strict"))
            self._remove_tmp_path(self._connection._shell.tmpdir)

        text, layout = rendered["text"], rendered["layout"]
        result.update(
            tpgen_checksum=layout["config_sha1"],
            tpgen_layout=layout,
            tpgen_source=source,
        )
        if args["render_only"]:
            result.update(changed=False, msg=f"{source}: renders ({len(text.splitlines())} lines)")
            return result

        dest = args["dest"]
        if not dest:
            return {**result, "failed": True, "msg": "dest is required unless render_only is true"}

        try:
            return self._install(result, text, dest, args["previous"], task_vars)
        finally:
            self._remove_tmp_path(self._connection._shell.tmpdir)

    def _certificates(
        self,
        node_spec: Any,
        tls_files: Mapping[str, Any],
        task_vars: dict[str, Any],
        local_tempdir: str,
    ) -> dict[str, str]:
        """Where each certificate of the spec can be read on the controller: its copy named in
        ``tls_files``, else the node's file fetched with slurp (certificates are public; keys
        are never read). A certificate that is on neither stays unknown to the plan."""
        if not _may_staple(node_spec):
            return {}
        found: dict[str, str] = {}
        for index, certificate in enumerate(node_spec.tls.certificates):
            path = certificate.cert
            if path in tls_files:
                found[path] = str(tls_files[path])
                continue
            fetched = self._execute_module(
                module_name="ansible.legacy.slurp",
                module_args={"src": path},
                task_vars=task_vars,
            )
            if fetched.get("failed") or "content" not in fetched:
                continue
            local = os.path.join(local_tempdir, f"certificate-{index}.pem")
            with open(to_bytes(local, errors="surrogate_or_strict"), "wb") as handle:
                handle.write(base64.b64decode(fetched["content"]))
            found[path] = local
        return found

    def _install(
        self,
        result: dict[str, Any],
        text: str,
        dest: str,
        previous: str | None,
        task_vars: dict[str, Any],
    ) -> dict[str, Any]:
        """Keep the live file as `previous` when it is about to change, then copy `text`."""
        live = self._execute_remote_stat(dest, all_vars=task_vars, follow=True)
        will_change = not live["exists"] or live.get("checksum") != result["tpgen_checksum"]
        result["previous"] = None
        if previous and live["exists"] and will_change:
            saved = self._execute_module(
                module_name="ansible.legacy.copy",
                module_args={"src": dest, "dest": previous, "remote_src": True, "mode": "preserve"},
                task_vars=task_vars,
            )
            if saved.get("failed"):
                return {
                    **result,
                    "failed": True,
                    "msg": f"could not keep the live {dest} as {previous}: {saved.get('msg')}",
                }
            result["previous"] = previous
        copied = self._copy(text, dest, task_vars)
        merged = {**result, **copied}
        if copied.get("failed"):
            merged["msg"] = _rejected(copied, dest)
        return merged

    def _copy(self, text: str, dest: str, task_vars: dict[str, Any]) -> dict[str, Any]:
        """ansible.legacy.copy of `text` to `dest`, with the task's own file arguments."""
        new_task = self._task.copy()
        for name in _OWN_ARGS:
            new_task.args.pop(name, None)
        new_task.args.setdefault("mode", "0644")

        local_tempdir = tempfile.mkdtemp(dir=C.DEFAULT_LOCAL_TMP)
        try:
            rendered = os.path.join(local_tempdir, os.path.basename(dest))
            with open(to_bytes(rendered, errors="surrogate_or_strict"), "wb") as handle:
                handle.write(to_bytes(text, errors="surrogate_or_strict"))
            new_task.args.update({"src": rendered, "dest": dest})
            copy_action = self._shared_loader_obj.action_loader.get(
                "ansible.legacy.copy",
                task=new_task,
                connection=self._connection,
                play_context=self._play_context,
                loader=self._loader,
                templar=self._templar,
                shared_loader_obj=self._shared_loader_obj,
            )
            copied: dict[str, Any] = copy_action.run(task_vars=task_vars)
        finally:
            shutil.rmtree(to_bytes(local_tempdir, errors="surrogate_or_strict"))
        return copied


def _rejected(copied: dict[str, Any], dest: str) -> str:
    """The message of a copy the node refused (its validate command failed)."""
    detail = str(copied.get("stderr") or copied.get("stdout") or "").strip()
    reason = copied.get("msg", "copy failed")
    return (
        f"the rendered config was rejected on the node ({reason}); "
        f"{dest} was not changed and the running nginx keeps its config"
        + (f":\n{detail}" if detail else "")
    )
