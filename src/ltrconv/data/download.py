"""Download a file over HTTP(S): retries, a timeout without data, resumption from a ``.part``
file, progress lines, and an optional SHA-256 the finished file must match."""

from __future__ import annotations

import hashlib
import http.client
import os
import re
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Callable, Iterable

from ..errors import AcquireError
from .verify import sha256_file

READ_BLOCK = 1 << 16


PROGRESS_EVERY = 2.0  # seconds between progress lines of a download


class _Truncated(Exception):
    pass


def _mb(n: float) -> str:
    return f"{n / 1e6:.1f} MB"


def _reason(exc: BaseException, timeout: float) -> str:
    """One line for a failed request."""
    inner = exc.reason if isinstance(exc, urllib.error.URLError) and not isinstance(
        exc, urllib.error.HTTPError) else exc
    if isinstance(inner, TimeoutError) or "timed out" in str(inner):
        return f"timed out (no data for {timeout:g} s)"
    if isinstance(inner, ConnectionRefusedError):
        return "connection refused"
    if isinstance(inner, socket.gaierror):
        return f"cannot resolve the host name, no network? ({inner.strerror})"
    if isinstance(exc, urllib.error.HTTPError):
        return f"HTTP {exc.code} {exc.reason}"
    return str(inner) or type(inner).__name__


def _unresolved(exc: BaseException) -> bool:
    """Whether a request failed because the host name does not resolve (no DNS, no network,
    or no such host): a failure retries would only repeat."""
    inner = exc.reason if isinstance(exc, urllib.error.URLError) else exc
    return isinstance(inner, socket.gaierror)


def download_one(url: str, dest: str | Path, *, sha256: str | None = None, retries: int = 3,
                 timeout: float = 60.0, backoff: float = 2.0,
                 log: Callable[[str], None] = print) -> Path:
    """Fetch ``url`` into ``dest``, retrying; raises :class:`AcquireError` naming the URL.

    A host name that does not resolve, and an HTTP 4xx answer other than 408 and 429, end the
    attempts at once (the caller moves on to its next URL).

    Data goes to ``dest.part`` and resumes from it with an HTTP Range request; the file is
    renamed to ``dest`` only when its length matches Content-Length and, if given, its
    SHA-256 matches ``sha256`` (a mismatching download is deleted). ``timeout`` bounds
    each wait for the server (connecting, or the next block of data).
    """
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = dest.with_name(dest.name + ".part")
    failures = []
    for attempt in range(1, retries + 1):
        try:
            _fetch(url, part, timeout, log)
        except urllib.error.HTTPError as exc:
            failures.append(f"attempt {attempt}/{retries}: {_reason(exc, timeout)}")
            log(f"download of {url} failed: {failures[-1]}")
            if exc.code == 416:  # our partial download does not fit the file: start afresh
                part.unlink(missing_ok=True)
            elif 400 <= exc.code < 500 and exc.code not in (408, 429):
                break  # the server said no: asking again will not help
        except (urllib.error.URLError, OSError, http.client.HTTPException, _Truncated,
                ValueError) as exc:
            failures.append(f"attempt {attempt}/{retries}: {_reason(exc, timeout)}")
            if _unresolved(exc):  # asking again in a few seconds will not help: next URL
                failures[-1] += "; not retried"
                log(f"download of {url} failed: {failures[-1]}")
                break
            log(f"download of {url} failed: {failures[-1]}")
        else:
            if sha256 is not None:
                digest = sha256_file(part)
                if digest != sha256.lower():
                    part.unlink(missing_ok=True)
                    raise AcquireError(f"{url}: the download has SHA-256 {digest}, "
                                       f"archive_sha256 is {sha256} (deleted it)")
            os.replace(part, dest)
            return dest
        if attempt < retries:
            time.sleep(backoff * attempt)
    reasons = [f.split(": ", 1)[1] for f in failures]
    if len(failures) > 1 and len(set(reasons)) == 1:
        raise AcquireError(f"{url}: {len(failures)} attempts, each: {reasons[0]}")
    raise AcquireError(f"{url}: " + "; ".join(failures))


def download(urls: Iterable[str], dest: str | Path, *, sha256: str | None = None,
             retries: int = 3, timeout: float = 60.0, backoff: float = 2.0,
             log: Callable[[str], None] = print) -> Path:
    """Fetch the first of ``urls`` that works into ``dest`` (see :func:`download_one`)."""
    errors = []
    for url in urls:
        try:
            return download_one(url, dest, sha256=sha256, retries=retries, timeout=timeout,
                                backoff=backoff, log=log)
        except AcquireError as exc:
            errors.append(str(exc))
    raise AcquireError("download failed:\n  " + "\n  ".join(errors or ["no URL configured"]))


def _fetch(url: str, part: Path, timeout: float, log: Callable[[str], None]) -> None:
    have = part.stat().st_size if part.exists() else 0
    req = urllib.request.Request(url, headers={"User-Agent": "ltrconv"})
    if have:
        req.add_header("Range", f"bytes={have}-")
    start = time.monotonic()
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        status = getattr(resp, "status", 200)
        if have and (status != 206 or not str(resp.headers.get("Content-Range", "")).startswith(
                f"bytes {have}-")):
            have = 0  # the server ignored the Range header: start over
        length = resp.headers.get("Content-Length")
        total = have + int(length) if length is not None else None
        log(f"downloading {url}" + (f" ({_mb(total)})" if total else "")
            + (f", resuming at {_mb(have)}" if have else ""))
        got, last = 0, start
        with open(part, "ab" if have else "wb") as fh:
            while True:
                block = resp.read(READ_BLOCK)
                if not block:
                    break
                fh.write(block)
                got += len(block)
                now = time.monotonic()
                if now - last >= PROGRESS_EVERY:
                    last = now
                    share = f" of {_mb(total)} ({100 * (have + got) / total:.0f}%)" if total else ""
                    log(f"  {_mb(have + got)}{share}, {_mb(got / (now - start))}/s")
    size = part.stat().st_size
    secs = max(time.monotonic() - start, 1e-6)
    log(f"  {size} bytes ({_mb(size)}) in {secs:.1f} s, {_mb(got / secs)}/s")
    if total is not None and size != total:
        raise _Truncated(f"connection closed after {size} of {total} bytes")


def download_path(work: Path, url: str, name: str) -> Path:
    """Where the download of ``url`` is kept: one directory per URL, so that a partial
    download is only ever resumed from the URL it came from."""
    parts = urllib.parse.urlsplit(url)
    host = re.sub(r"[^A-Za-z0-9.-]+", "_", parts.hostname or "local")
    tag = hashlib.sha256(url.encode()).hexdigest()[:10]
    return work / "download" / f"{host}-{tag}" / name
