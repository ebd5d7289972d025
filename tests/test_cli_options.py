"""The command line's options: each one declared once (``apps/cli/_options.py``), and every
command keeps the options it had before they moved there (names, defaults, types)."""

from __future__ import annotations

import ast
import collections
import json
import pathlib

import click
import typer
from conftest import run_cli

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
            assert now[command][option] == was, f"{command} {option}: {now[command][option]}"


# -------------------------------------------------------------------- each option declared once
# names that two options of different meaning share, each declared once: --shuffle is an
# on/off flag for trace and the playground and takes full|block|none in train; -o is the
# --output of predict and plot and demo's --output-dir
SHARED_NAMES = {"--shuffle": 2, "-o": 2}


def _is_option(func: ast.expr) -> bool:
    return (isinstance(func, ast.Attribute) and func.attr == "Option") or (
        isinstance(func, ast.Name) and func.id == "Option"
    )


def _declarations() -> list[tuple[str, list[str]]]:
    """``(file:line, flags)`` of every ``typer.Option(...)`` call in the command line's
    source (``--a/--b`` gives both names)."""
    found = []
    for path in sorted(CLI.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and _is_option(node.func):
                flags = [
                    flag
                    for arg in node.args
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str)
                    for flag in arg.value.split("/")
                ]
                found.append((f"{path.relative_to(CLI)}:{node.lineno}", flags))
    return found


def test_no_option_name_is_declared_twice():
    """Each option name stands in one ``typer.Option`` declaration under apps/cli (but the
    two names of SHARED_NAMES, each in exactly two), and every option a command lists is
    declared there by name."""
    declarations = _declarations()
    for where, flags in declarations:  # names written out, so that this scan sees them
        assert flags and all(f.startswith("-") for f in flags), where
    places = collections.defaultdict(list)
    for where, flags in declarations:
        for flag in flags:
            places[flag].append(where)
    twice = {flag: len(at) for flag, at in places.items() if len(at) > 1}
    assert twice == SHARED_NAMES, {flag: places[flag] for flag in twice}
    listed = {
        name
        for options in options_of_every_command().values()
        for key, option in options.items()
        if key.startswith("--") and key != "--help"
        for name in option["names"]
    }
    assert len(listed) > 60 and listed <= set(places), sorted(listed - set(places))


def test_options_are_declared_in_their_one_module():
    """The commands declare no option of their own: every declaration is in _options.py,
    but the group's own --version."""
    elsewhere = [(where, f) for where, f in _declarations() if not where.startswith("_options.py")]
    assert [(where.split(":")[0], flags) for where, flags in elsewhere] == [
        ("app.py", ["--version", "-V"])
    ]


def _declared_help() -> dict[str, list[str]]:
    """The help of each option name as ``_options`` declares it (two for SHARED_NAMES)."""
    from typer.models import OptionInfo

    from rosenblatt.apps.cli import _options

    helps = collections.defaultdict(list)
    for value in vars(_options).values():
        declared = getattr(value, "__metadata__", (value,))[0]
        if isinstance(declared, OptionInfo) and isinstance(declared.default, str):
            for flag in (declared.default, *(declared.param_decls or ())):
                if declared.help not in helps[flag.split("/")[0]]:
                    helps[flag.split("/")[0]].append(declared.help)
    return helps


def test_a_command_adds_to_an_option_help_never_replaces_it():
    """Every command's help of an option starts with the option's one help (a command's
    own sentence follows it: ``more_help``), and the shared declaration keeps its own."""
    declared = _declared_help()
    for name, command in _commands().items():
        for param in command.get_params(click.Context(command)):
            if param.param_type_name != "option" or param.name == "help":
                continue
            shown = param.help  # type: ignore[attr-defined]
            bases = declared[_key(param)]
            assert any(shown.startswith(base) for base in bases), (name, _key(param), shown)
    predict, evaluate = _commands()["predict"], _commands()["evaluate"]
    chunk = {c: _param(c, "--chunk-size").help for c in (predict, evaluate)}
    assert chunk[evaluate] == "Lines of DATA read at a time: memory holds one such block."
    assert chunk[predict] == (
        "Lines of DATA read at a time: memory holds one such block. Each block is predicted "
        "as it is read, and standard input is also answered wherever it pauses, so that "
        "`predict -` works as a filter."
    )
    assert declared["--chunk-size"] == [chunk[evaluate]]


def _param(command: click.Command, key: str) -> click.Option:
    params = command.get_params(click.Context(command))
    return next(p for p in params if _key(p) == key)  # type: ignore[return-value]


def test_one_chunk_size_rule_for_train_with_or_without_stream(tmp_path):
    """``--chunk-size`` is checked where it is declared, as it is parsed: train refuses a bad
    one with or without --stream (it used to pass over it without), before reading DATA."""
    for stream in ([], ["--stream"]):
        result = run_cli(
            "train", tmp_path / "none.csv", "-m", tmp_path / "m.rbm", "--chunk-size", 0, *stream
        )
        assert result.exit_code == 2
        assert result.stderr == "error: --chunk-size must be at least 1; got 0\n"
        assert not (tmp_path / "m.rbm").exists()
