"""Issue 10, points 3 and 6: every output goes through core/safe_write.py — never over an input (through symlinks
or hard links), never through a planted name, never onto a device, FIFO or folder, never half a file left."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys

import pytest

from afp_desktop import cli
from afp_desktop.core.safe_write import check_destination, write_file
from tests.corpus_util import corpus_path


@pytest.fixture
def trace(tmp_path):
    path = tmp_path / "run.ndjson"
    shutil.copy(corpus_path("02-react-two-tools", "events.ndjson"), path)
    return path


def _run(argv, capsys) -> tuple[int, str]:
    try:
        code = cli.main([*map(str, argv)])
    except SystemExit as exit_:  # argparse's own refusals
        code = exit_.code
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err


def _leftovers(folder) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.endswith((".tmp", ".part"))]


def test_export_over_its_own_input_is_refused(tmp_path, capsys):
    source = tmp_path / "t.svg"  # a trace that happens to be named like the output
    shutil.copy(corpus_path("02-react-two-tools", "events.ndjson"), source)
    before = source.read_bytes()
    code, err = _run(["export", source, "-o", source], capsys)
    assert code == 2 and "refusing to overwrite the input" in err
    assert source.read_bytes() == before


@pytest.mark.parametrize("link", ["symlink", "hardlink"])
@pytest.mark.parametrize("command,suffix", [("export", ".png"), ("export", ".svg"), ("convert", ".jsonl")])
def test_an_output_that_is_the_input_through_a_link_is_refused(trace, capsys, link, command, suffix):
    out = trace.with_name("link" + suffix)
    out.symlink_to(trace) if link == "symlink" else os.link(trace, out)
    before = trace.read_bytes()
    code, err = _run([command, trace, "-o", out], capsys)
    assert code == 2 and "refusing to overwrite the input" in err
    assert trace.read_bytes() == before and out.exists()
    assert not _leftovers(trace.parent)


def test_a_rotated_input_is_not_an_output(trace, capsys):
    older = trace.with_name(trace.name + ".1")
    shutil.copy(trace, older)
    before = older.read_bytes()
    code, err = _run(["convert", trace, "-o", older], capsys)
    assert code == 2 and older.read_bytes() == before


@pytest.mark.parametrize("spelled", ["plain", "through ./", "through a linked folder"])
def test_the_older_half_name_of_the_input_is_refused_before_it_exists(trace, tmp_path, capsys, spelled):
    older = trace.with_name(trace.name + ".1")
    if spelled == "plain":
        out = older
    elif spelled == "through ./":
        out = tmp_path / "." / older.name
    else:
        (tmp_path / "linked").symlink_to(tmp_path)
        out = tmp_path / "linked" / older.name
    code, err = _run(["convert", trace, "-o", out], capsys)
    assert code == 2 and "rotated older half" in err and str(trace) in err
    assert not older.exists() and not _leftovers(tmp_path)


def test_the_newer_half_name_of_a_dot_1_input_is_refused_before_it_exists(tmp_path, capsys):
    older = tmp_path / "run.ndjson.1"
    shutil.copy(corpus_path("02-react-two-tools", "events.ndjson"), older)
    newer = tmp_path / "run.ndjson"
    code, err = _run(["convert", older, "-o", newer], capsys)
    assert code == 2 and "rotated newer half" in err
    assert not newer.exists()


@pytest.mark.parametrize("argv", [["export", "{src}", "-o", "{out}"], ["{src}", "--screenshot", "{out}"]])
def test_pictures_refuse_the_newer_half_name_of_a_dot_1_input(tmp_path, capsys, argv):
    older = tmp_path / "graph.png.1"
    shutil.copy(corpus_path("02-react-two-tools", "events.ndjson"), older)
    out = tmp_path / "graph.png"
    code, err = _run([a.format(src=older, out=out) for a in argv], capsys)
    assert code == 2 and "rotated newer half" in err
    assert not out.exists()


def test_a_name_beside_the_input_that_is_not_its_partner_is_written(trace, capsys):
    out = trace.with_name(trace.name + ".2")
    code, _ = _run(["convert", trace, "-o", out], capsys)
    assert code == 0 and out.is_file()


def test_convert_does_not_write_through_a_planted_part_symlink(trace, tmp_path, capsys):
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"precious")
    out = tmp_path / "out.jsonl"
    for planted in (out.with_name(out.name + ".part"), out.with_name("." + out.name + ".tmp")):
        planted.symlink_to(victim)
    code, _ = _run(["convert", trace, "-o", out], capsys)
    assert code == 0 and out.read_bytes().startswith(b'{"format":"afp-desktop.run.v1"')
    assert victim.read_bytes() == b"precious"
    assert stat.S_IMODE(out.stat().st_mode) & 0o044 or os.umask(0o022) & 0o044  # the umask's mode, not 0600


@pytest.mark.parametrize("kind", ["fifo", "folder"])
@pytest.mark.parametrize("command,suffix", [("export", ".png"), ("convert", ".jsonl")])
def test_outputs_that_are_not_regular_files_are_refused(trace, tmp_path, capsys, kind, command, suffix):
    out = tmp_path / f"dest{suffix}"
    os.mkfifo(out) if kind == "fifo" else out.mkdir()
    code, err = _run([command, trace, "-o", out], capsys)
    assert code == 2 and ("not a regular file" in err or "folder" in err)
    assert stat.S_ISFIFO(out.stat().st_mode) if kind == "fifo" else out.is_dir()
    assert not _leftovers(tmp_path)


def test_a_character_device_is_written_as_a_stream_never_replaced(trace, capsys):
    if not os.path.exists("/dev/null"):
        pytest.skip("no /dev/null")
    destination = check_destination("/dev/null")
    assert destination.is_stream and destination.file is None
    code, _ = _run(["convert", trace, "-o", "/dev/null"], capsys)
    assert code == 0 and stat.S_ISCHR(os.stat("/dev/null").st_mode)


def _convert_in_a_child(trace, output: str, stdout, tmp_path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "afp_desktop", "convert", str(trace), "-o", output],
                          stdout=stdout, stderr=subprocess.PIPE, cwd=tmp_path, timeout=120)


@pytest.mark.parametrize("output", ["-", "/dev/stdout", "/proc/self/fd/1", "/dev/fd/1", "link-to-stdout"])
@pytest.mark.parametrize("stdout_is", ["file", "pipe"])
def test_standard_output_is_written_as_the_stream(trace, tmp_path, output, stdout_is):
    """Writing to standard output writes into the open stream: /dev/stdout (a symlink into /proc) stays a
    symlink, whatever standard output is, and nothing is renamed over a device path."""
    if output == "link-to-stdout":
        (tmp_path / output).symlink_to("/dev/stdout")
    elif output != "-" and not os.path.exists(output):
        pytest.skip(f"no {output} here")
    link_before = os.readlink("/dev/stdout") if os.path.islink("/dev/stdout") else None
    if stdout_is == "file":
        with open(tmp_path / "captured", "wb") as captured:
            done = _convert_in_a_child(trace, output, captured, tmp_path)
        written = (tmp_path / "captured").read_bytes()
    else:
        done = _convert_in_a_child(trace, output, subprocess.PIPE, tmp_path)
        written = done.stdout
    assert done.returncode == 0, done.stderr
    assert written.startswith(b'{"format":"afp-desktop.run.v1"') and written.endswith(b"\n")
    if link_before is not None:
        assert os.readlink("/dev/stdout") == link_before
    if output == "link-to-stdout":
        assert os.path.islink(tmp_path / output)
    assert not _leftovers(tmp_path) and not [p for p in os.listdir("/dev") if p.endswith(".tmp")]


def test_standard_output_redirected_onto_the_input_is_refused(trace, tmp_path):
    before = trace.read_bytes()
    with open(trace, "ab") as same_file:
        done = _convert_in_a_child(trace, "-", same_file, tmp_path)
    assert done.returncode == 2 and b"refusing to overwrite the input" in done.stderr
    assert trace.read_bytes() == before


def test_a_symlink_to_a_file_stays_a_link_and_its_file_is_replaced(trace, tmp_path, capsys):
    real = tmp_path / "real.jsonl"
    real.write_bytes(b"old")
    link = tmp_path / "out.jsonl"
    link.symlink_to(real)
    code, _ = _run(["convert", trace, "-o", link], capsys)
    assert code == 0 and link.is_symlink()
    assert real.read_bytes().startswith(b'{"format":"afp-desktop.run.v1"')


@pytest.mark.parametrize("command,name", [("export", "x.png"), ("export", "x.svg"), ("convert", "x.jsonl")])
def test_a_missing_folder_is_a_message(trace, tmp_path, capsys, command, name):
    code, err = _run([command, trace, "-o", tmp_path / "missing-folder" / name], capsys)
    assert code == 2 and "does not exist" in err


@pytest.mark.parametrize("scale", ["0", "-1", "nan", "inf", "1e9", "-inf", "abc"])
@pytest.mark.parametrize("name", ["x.png", "x.svg"])
def test_scale_is_validated(trace, tmp_path, capsys, scale, name):
    out = tmp_path / name
    code, err = _run(["export", trace, "-o", out, f"--scale={scale}"], capsys)
    assert code == 2 and "argument --scale: must be a number greater than 0" in err
    assert not out.exists()


def test_a_good_scale_still_exports(trace, tmp_path, capsys):
    out = tmp_path / "x.svg"
    code, _ = _run(["export", trace, "-o", out, "--scale", "2.5"], capsys)
    assert code == 0 and out.read_bytes().lstrip().startswith(b"<?xml")


def test_a_failed_write_leaves_nothing_and_keeps_the_old_file(tmp_path):
    out = tmp_path / "out.jsonl"
    out.write_bytes(b"old")

    def broken(handle):
        handle.write(b"half")
        raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError):
        write_file(out, broken)
    assert out.read_bytes() == b"old" and not _leftovers(tmp_path)
    write_file(out, b"new")
    assert out.read_bytes() == b"new" and not _leftovers(tmp_path)


def test_settings_and_templates_are_not_written_into_a_fifo(tmp_path, monkeypatch):
    from afp_desktop.app.storage import template_store
    from afp_desktop.app.storage.settings import Settings

    monkeypatch.setenv("AFP_DESKTOP_CONFIG_DIR", str(tmp_path))
    os.mkfifo(tmp_path / "settings.json")
    settings = Settings(tmp_path / "settings.json")
    assert settings.save() is not None  # a sentence, not a hang or a traceback
    assert stat.S_ISFIFO((tmp_path / "settings.json").stat().st_mode)
    os.mkfifo(tmp_path / template_store.STORE_NAME)
    assert template_store.remember({"a": "b"}, "Agent") is not None


def test_an_unforeseen_error_is_one_paragraph_not_a_traceback(trace, capsys, monkeypatch):
    import afp_desktop.core.model.summary as summary

    def broken(run):
        raise TypeError("simulated bug")

    monkeypatch.setattr(summary, "summarize", broken)
    code = cli.main(["info", str(trace)])
    err = capsys.readouterr().err
    assert code == 2 and "internal error (TypeError: simulated bug)" in err and "Traceback" not in err
    assert err.count("\n") == 1
