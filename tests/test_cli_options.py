"""The command line's options: each one declared once (``apps/cli/_options.py``), and every
command keeps the options it had before they moved there (names, defaults, types)."""

from __future__ import annotations

import json
import pathlib

import click
import typer

import rosenblatt.apps.cli as cli_package
from rosenblatt.apps.cli import app

# what every command listed before its options were declared once (taken from main then);
# a command may gain options, never lose or rename one or change its default or type
SNAPSHOT = pathlib.Path(__file__).parent / "data" / "cli_options.json"
CLI = pathlib.Path(cli_package.__file__).parent


def _commands() -> dict[str, click.Command]:
    return dict(typer.main.get_command(app).commands)  # type: ignore[attr-defined]


def _key(param: click.Parameter) -> str:
    """A parameter's name in the snapshot: its long option name, or an argument's metavar."""
    if param.param_type_name == "argument":
        return str(param.metavar or param.name).upper()
    return next(name for name in param.opts if name.startswith("--"))


def _described(param: click.Parameter) -> dict:
    default = param.default
    return {
        "names": sorted([*param.opts, *param.secondary_opts]),
        "default": list(default) if isinstance(default, (list, tuple)) else default,
        "required": param.required,
        "type": param.type.name,
        "multiple": bool(getattr(param, "multiple", False)),
        "flag": bool(getattr(param, "is_flag", False)),
        "metavar": param.metavar,
    }


def options_of_every_command() -> dict[str, dict[str, dict]]:
    """For each command, what ``rosenblatt COMMAND --help`` lists: per option (and
    argument) its names, default, whether it is required, its type, whether it repeats,
    whether it is an on/off flag and the metavar its help shows, if it has its own."""
    listed = {}
    for name, command in sorted(_commands().items()):
        params = command.get_params(click.Context(command))
        listed[name] = {_key(p): _described(p) for p in params}
    return listed


def test_every_command_keeps_the_options_it_had():
    """Each command lists every option of the snapshot, under the same names, with the same
    default and type (an option lost or renamed fails here; a new one is welcome)."""
    before = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    now = options_of_every_command()
    assert sum(map(len, before.values())) >= 100 and len(before["train"]) >= 35
    for command, options in before.items():
        assert command in now, f"the command line lost `rosenblatt {command}`"
        for option, was in options.items():
            assert option in now[command], f"`rosenblatt {command}` lost or renamed {option}"
            assert now[command][option] == was, (command, option)
