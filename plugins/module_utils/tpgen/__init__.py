"""tpgen's node-side code as Ansible ships it: the collection's module_utils ``tpgen`` on the node.

This tree mirrors generator/tpgen for the files a module needs and nothing else: its .py
files are symlinks to the one copy in generator/ (spec/units.py, ops/doctor/*.py), and its
package ``__init__`` files are its own and empty, so that nothing of tpgen's own package set-up
(pydantic, click, tpgen.api) goes to a node. AnsiballZ ships only what the module imports from
here. See docs/operations.md, "doctor.yml: the fleet".
"""
