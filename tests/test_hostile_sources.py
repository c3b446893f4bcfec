"""Issue 10, points 1, 2 and 9: only regular files are read, within a byte budget, and compressed streams are
decompressed in bounded steps (bombs are built here with streaming compressors: nothing big is committed)."""

from __future__ import annotations

import gzip
import lzma
import os
import re
import subprocess
import sys
import textwrap
import threading

import pytest

from afp_desktop import cli
from afp_desktop.core.formats import LoadError, open_run
from afp_desktop.core.formats import source
from afp_desktop.core.formats.size_limit import size_limit
from afp_desktop.core.formats.source import byte_limit, max_bytes, parse_size, read_source
from tests.corpus_util import read_bytes

ZEROS_64M = bytes(64 << 20)


def _open_with_timeout(path, seconds=120.0):
    """open_run on a thread, so a read that blocks (a FIFO) fails the test instead of hanging it (the time is a
    guard against a hang only: a refusal comes before anything is read)."""
    outcome = {}

    def work():
        try:
            outcome["run"] = open_run(path)
        except BaseException as err:  # noqa: BLE001
            outcome["error"] = err

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"open_run({path}) did not return within {seconds} s"
    return outcome


def _refusal(path) -> str:
    outcome = _open_with_timeout(path)
    assert isinstance(outcome.get("error"), LoadError), outcome
    return str(outcome["error"])


def test_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "trace.json"
    os.mkfifo(fifo)
    message = _refusal(fifo)
    assert "named pipe" in message and str(fifo) in message


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_devices_are_refused_even_through_a_symlink(tmp_path, device):
    if not os.path.exists(device):
        pytest.skip(f"no {device}")
    link = tmp_path / "trace.ndjson"
    link.symlink_to(device)
    assert "device" in _refusal(link)  # (before a byte is read: read, /dev/zero would never end)
    assert "device" in _refusal(device)


def test_socket_is_refused(tmp_path):
    import socket

    path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))
        assert "socket" in _refusal(path)


def test_symlink_loop_says_so(tmp_path):
    (tmp_path / "a.json").symlink_to(tmp_path / "b.json")
    (tmp_path / "b.json").symlink_to(tmp_path / "a.json")
    message = _refusal(tmp_path / "a.json")
    assert "symbolic link loop" in message and "no such file" not in message


def test_a_file_over_the_limit_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "events.ndjson"
    path.write_bytes(read_bytes("02-react-two-tools", "events.ndjson"))
    with byte_limit(1000):
        with pytest.raises(LoadError) as info:
            open_run(path)
    message = str(info.value)
    assert str(path) in message and "1000 bytes" in message and "AFP_DESKTOP_MAX_BYTES" in message
    open_run(path)  # the limit was only for the block


def _bomb(path, compressor, copies: int) -> None:
    """A file that decompresses to copies × 64 MiB of zeros: one compressed block, written `copies` times (both
    gzip and xz read concatenated members as one stream)."""
    block = compressor(ZEROS_64M)
    with open(path, "wb") as handle:
        for _ in range(copies):
            handle.write(block)


@pytest.mark.parametrize("suffix,compressor", [(".xz", lambda d: lzma.compress(d, preset=0)),
                                               (".gz", lambda d: gzip.compress(d, 1))])
def test_bombs_stop_at_the_limit(tmp_path, suffix, compressor):
    path = tmp_path / f"bomb.json{suffix}"
    _bomb(path, compressor, 96)  # 6 GiB
    with byte_limit(100 << 20):
        with pytest.raises(LoadError) as info:
            open_run(path)
    message = str(info.value)
    assert str(path) in message and "expands to more than the limit" in message and "100 MiB" in message


def test_a_gz_of_valid_ndjson_past_the_limit_is_refused(tmp_path):
    line = read_bytes("02-react-two-tools", "events.ndjson").split(b"\n")[0] + b"\n"
    path = tmp_path / "events.ndjson.gz"
    with gzip.open(path, "wb", compresslevel=1) as handle:
        for _ in range(5000):
            handle.write(line * 20)
    with byte_limit(1 << 20):
        with pytest.raises(LoadError, match="expands to more than the limit"):
            open_run(path)


def test_the_xz_bomb_with_the_default_limit_costs_at_most_the_limit(tmp_path):
    """The default limit (from the memory available: 4 GiB here) stops a 6 GiB bomb with at most the limit in
    memory. In a child process, so its peak memory is the load's own: VmHWM (reset by exec), not ru_maxrss, which
    a forked child inherits from the parent — late in a long test run, pytest's own 1.6 GB."""
    path = tmp_path / "bomb.json.xz"
    _bomb(path, lambda d: lzma.compress(d, preset=0), 96)
    limit = size_limit(4 << 30, "unknown")  # (the head of zeros names no format)
    script = textwrap.dedent(f"""
        import resource, sys
        from afp_desktop import cli
        from afp_desktop.core.formats import source
        source.available_memory = lambda: 4 << 30
        code = cli.main(["info", {str(path)!r}])
        try:
            with open("/proc/self/status") as status:
                peak = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))
        except OSError:
            peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
        print(code, peak)
    """)
    env = {k: v for k, v in os.environ.items() if k != "AFP_DESKTOP_MAX_BYTES"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env)
    code, peak = done.stdout.split()
    assert code == "2", done.stderr
    assert "expands to more than the limit" in done.stderr and "Traceback" not in done.stderr
    assert "4 GiB of memory is available" in done.stderr
    assert int(peak) < limit + (300 << 20), (peak, limit)


def test_trailing_garbage_after_a_compressed_stream_is_a_warning(tmp_path):
    data = read_bytes("02-react-two-tools", "trace.json")
    for suffix, packed in ((".xz", lzma.compress(data)), (".gz", gzip.compress(data))):
        path = tmp_path / f"trace.json{suffix}"
        path.write_bytes(packed + b"GARBAGE AFTER THE STREAM")
        run = open_run(path)
        assert any("after the end of the" in w.message and "ignored" in w.message for w in run.warnings), \
            run.warnings
        path.write_bytes(packed + b"\x00" * 8)  # stream padding is not garbage
        assert not any("after the end" in w.message for w in open_run(path).warnings)


def test_concatenated_members_and_a_cut_stream(tmp_path):
    data = read_bytes("02-react-two-tools", "events.ndjson")
    half = data.index(b"\n", len(data) // 2) + 1
    path = tmp_path / "events.ndjson.gz"
    path.write_bytes(gzip.compress(data[:half]) + gzip.compress(data[half:]))
    assert read_source(path) == data
    path.write_bytes(lzma.compress(data)[:-30])
    with pytest.raises(LoadError, match="cut off"):
        read_source(path)


def test_limit_from_environment_and_option(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("AFP_DESKTOP_MAX_BYTES", "2K")
    assert max_bytes() == 2048
    monkeypatch.setenv("AFP_DESKTOP_MAX_BYTES", "nonsense")
    monkeypatch.setattr(source, "available_memory", lambda: 24 << 30)
    assert max_bytes("recording") == size_limit(24 << 30, "recording") > 1 << 30
    assert parse_size("1.5G") == 3 << 29
    path = tmp_path / "events.ndjson"
    path.write_bytes(read_bytes("02-react-two-tools", "events.ndjson"))
    assert cli.main(["info", str(path), "--max-bytes", "1K"]) == 2
    assert "1 KiB" in capsys.readouterr().err
    assert cli.main(["info", str(path)]) == 0


def test_the_window_accepts_the_max_bytes_its_refusal_names(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("AFP_DESKTOP_MAX_BYTES", raising=False)
    path = tmp_path / "events.ndjson"
    path.write_bytes(read_bytes("02-react-two-tools", "events.ndjson"))
    out = tmp_path / "shot.png"
    assert cli.main([str(path), "--max-bytes", "1K", "--screenshot", str(out)]) == 2
    refusal = capsys.readouterr().err
    said = re.findall(r"pass --max-bytes (\S+)", refusal)
    assert "1 KiB" in refusal and said and not out.exists()
    assert cli.main([str(path), "--max-bytes", said[0], "--screenshot", str(out)]) == 0  # what it says works
    assert out.exists()


def test_cli_fifo_and_dev_zero_are_one_line_refusals(tmp_path, capsys):
    fifo = tmp_path / "pipe.ndjson"
    os.mkfifo(fifo)
    for target in (fifo, "/dev/zero"):
        assert cli.main(["info", str(target)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the peak read from Linux's /proc/self/status")
@pytest.mark.parametrize("compressed", [False, True])
def test_a_big_file_is_held_once_while_it_is_read(tmp_path, compressed):
    """Read whole, a big file (or what a compressed one expands to) is one buffer, never parts joined: the read's
    peak is about the file's size, not twice it. In a child process, so the peak is the read's own (VmHWM)."""
    size = 192 << 20
    path = tmp_path / ("big.json.gz" if compressed else "big.json")
    if compressed:
        _bomb(path, lambda d: gzip.compress(d, 1), size // len(ZEROS_64M))
    else:
        with open(path, "wb") as handle:
            handle.truncate(size)  # (zeros: a sparse file, nothing big written)
    script = textwrap.dedent(f"""
        from afp_desktop.core.formats import source

        def memory(field):
            with open("/proc/self/status") as status:
                return next(int(line.split()[1]) * 1024 for line in status if line.startswith(field))

        before = memory("VmRSS:")
        data = source.read_source({str(path)!r})
        print(len(data), memory("VmHWM:") - before)
    """)
    env = {**os.environ, "AFP_DESKTOP_MAX_BYTES": "1G"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env)
    length, grew = done.stdout.split()
    assert int(length) == size, done.stderr
    assert int(grew) < size * 1.25, f"the read's peak grew by {int(grew) >> 20} MiB for a {size >> 20} MiB file"
