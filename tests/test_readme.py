"""Every Python block of README.md runs as written, in order, in one namespace.

A line ``expression  # value`` whose comment starts with a value (a number, a
tuple, a list, an array, True/False, a string) must show that value: the repr of
the expression, whitespace aside, begins the comment. Shell blocks are commands
for a terminal (``make``, ``rosenblatt ...``); the CLI tests cover those commands.
"""

import ast
import pathlib
import re
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

README = pathlib.Path(__file__).parents[1] / "README.md"
VALUE_START = re.compile(r"^(\(|\[|\{|array\(|-?\d|True|False|'|\")")


def python_blocks():
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def _squeeze(text):
    return re.sub(r"\s+", "", text)


def _claims(block):
    """(line number, expression source, claimed value) of every checkable line."""
    tree = ast.parse(block)
    lines = block.splitlines()
    for node in tree.body:
        if not isinstance(node, ast.Expr) or node.end_lineno != node.lineno:
            continue
        line = lines[node.lineno - 1]
        code, _, comment = line.partition("  #")
        comment = comment.strip()
        if comment and VALUE_START.match(comment):
            yield node.lineno, code.strip(), comment


def test_readme_has_python_blocks_with_claims():
    blocks = python_blocks()
    assert len(blocks) >= 6
    assert sum(len(list(_claims(b))) for b in blocks) >= 8


def test_every_python_block_runs_and_shows_what_it_says(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__readme__"}
    with np.printoptions(legacy=False), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for number, block in enumerate(python_blocks(), start=1):
            exec(compile(block, f"README.md python block {number}", "exec"), namespace)
            for line, source, claim in _claims(block):
                shown = _squeeze(repr(eval(source, namespace)))
                assert _squeeze(claim).startswith(shown), (
                    f"README block {number}, line {line}: {source} is {shown}, "
                    f"the README says {claim}"
                )


def _requirements():
    """The distributions rosenblatt always installs, and those of each extra (its metadata)."""
    from importlib.metadata import metadata

    from packaging.requirements import Requirement

    core, extras = set(), {}
    for line in metadata("rosenblatt").get_all("Requires-Dist"):
        requirement = Requirement(line)
        names = re.findall(r'extra == "([^"]+)"', str(requirement.marker or ""))
        for extra in names:
            extras.setdefault(extra, set()).add(requirement.name.lower())
        if not names:
            core.add(requirement.name.lower())
    return core, extras


def _imported(block):
    tree = ast.parse(block)
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    return {name.split(".")[0] for name in names}


def test_blocks_that_need_an_extra_say_which():
    """After `make demo` (no extras) a block that imports a package only an extra installs
    (Dask) must say so, ``pip install -e ".[extra]"``, naming an extra that has it; `make
    test` installs the dev extras, so the block still runs above."""
    core, extras = _requirements()
    optional = set().union(*extras.values()) - core
    assert "dask" in optional
    for number, block in enumerate(python_blocks(), start=1):
        named = re.findall(r'pip install -e "\.\[([\w-]+)\]"', block)
        for module in sorted(_imported(block) & optional):
            assert any(module in extras.get(extra, ()) for extra in named), (
                f"README block {number} imports {module}, which only the extras "
                f"{sorted(e for e, dists in extras.items() if module in dists)} install: "
                'the block must say `pip install -e ".[EXTRA]"`'
            )
            assert module in extras["dev"], f"`make test` (the dev extras) lacks {module}"


# ---------------------------------------------------------------------- shell commands
# an option as README writes it: --long-name, or -x (not a file name's or a word's dash)
_OPTION = re.compile(r"(?<![\w./-])(--[a-z][a-z0-9-]*|-[A-Za-z](?![\w.-]))")


def _subcommands():
    from rosenblatt.apps.cli.app import COMMANDS

    return set(COMMANDS)


def shell_commands():
    """Every ``rosenblatt ...`` command of README, from ``rosenblatt`` on: sh blocks
    (continuation lines joined, comments dropped, cut where a pipe or ``&&`` hands on to
    another program) and inline code spans of the prose, a line break inside them too;
    a span that starts with a subcommand (`` `predict --proba` ``) is one of its commands."""
    text = README.read_text(encoding="utf-8")
    lines = []
    for block in re.findall(r"```sh\n(.*?)```", text, re.S):
        for line in block.splitlines():
            code = re.split(r"\s#", line)[0].rstrip()
            if code.startswith((" ", "\t")) and lines:
                lines[-1] += " " + code.strip()
            elif code:
                lines.append(code)
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    spans = [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", prose)]
    subcommands = _subcommands()
    lines += [f"rosenblatt {s}" for s in spans if s.split(" ", 1)[0] in subcommands and " " in s]
    lines += [span for span in spans if re.search(r"\brosenblatt [a-z-]", span)]
    commands = []
    for line in lines:
        for command in re.split(r"(?:^|\s)rosenblatt\s+", line)[1:]:
            command = re.split(r"\s(?:\||&&|;)\s", command)[0].strip()
            if command:
                commands.append(command)
    return commands


def _options(name):
    """The options ``rosenblatt NAME --help`` lists (NAME an option: the group's own, as
    `rosenblatt --version`), or None when there is no such subcommand."""
    import click
    import typer

    from rosenblatt.apps.cli import app

    group = typer.main.get_command(app)
    command = group if name.startswith("-") else group.commands.get(name)
    if command is None:
        return None
    ctx = click.Context(command)
    return {
        option
        for param in command.get_params(ctx)
        if not getattr(param, "hidden", False)
        for option in (*param.opts, *param.secondary_opts)
        if option.startswith("-")
    }


def test_readme_shell_commands_use_options_that_exist():
    """Each README command names a real subcommand, and every option it shows, in a shell
    block or in the prose, is one that subcommand's help lists (a renamed or removed
    option fails here)."""
    commands = shell_commands()
    assert len(commands) >= 40
    options = {}
    for command in commands:
        name = command.split()[0]
        options.setdefault(name, _options(name))
        assert options[name] is not None, f"README runs `rosenblatt {command}`: no {name}"
        for option in _OPTION.findall(command):
            assert option in options[name], (
                f"README: `rosenblatt {command}` uses {option}, which `rosenblatt {name} "
                "--help` does not list"
            )


def test_readme_shell_commands_are_found_in_blocks_and_prose():
    """What the check above reads: synopsis lines with their continuations, commands after
    a pipe, prose spans across a line break, and spans that start with a subcommand."""
    commands = shell_commands()
    train = next(c for c in commands if c.startswith("train DATA --model m.rbl"))
    assert "--calibrate sigmoid|isotonic|online" in train and "--id-column" in train
    assert "predict - --model m.rbl" in commands  # `zcat test.csv.gz | rosenblatt predict -...`
    cross = next(c for c in commands if c.startswith("cross-validate DATA"))
    assert cross.endswith("[--ignore NAME,...] [--json]")  # its continuation line
    assert "predict --proba" in commands and "train --json" in commands
    assert "train --stream --calibrate online" in commands  # after `rosenblatt` in prose
    assert "train spambase55.csv -a voted" in commands  # a span broken across two lines
    assert _OPTION.findall("predict -m m.rbl t.csv -o a-b.csv --id-column x - ") == [
        "-m",
        "-o",
        "--id-column",
    ]


def test_readme_make_targets_and_scripts_exist():
    text = README.read_text(encoding="utf-8")
    root = README.parent
    makefile = (root / "Makefile").read_text(encoding="utf-8")
    for target in set(re.findall(r"`make ([a-z-]+)`|^make ([a-z-]+)", text, re.M)):
        name = target[0] or target[1]
        assert re.search(rf"^{name}:", makefile, re.M), f"README names `make {name}`"
    for script in set(re.findall(r"(benchmarks/\w+\.py|examples/\w+\.py)", text)):
        assert (root / script).is_file(), f"README names {script}"
