#!/usr/bin/env python3
"""scripts/matrix.py against a local stand-in of the SuiteSparse collection: an HTTP server on
127.0.0.1 (with and without Range support, and one that drops the connection half way) and a
file:// mirror, serving small archives built here. No other host is contacted.

  python3 tests/scripts/test_matrix_py.py [-v]
"""
import gzip
import hashlib
import http.server
import io
import os
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MATRIX_PY = os.path.join(ROOT, "scripts", "matrix.py")

REAL_MTX = b"""%%MatrixMarket matrix coordinate real symmetric
% a small SPD matrix standing in for GHS_indef/spmsrtls
4 4 7
1 1 4.0
2 1 -1.0
2 2 4.0
3 2 -1.0
3 3 4.0
4 3 -1.0
4 4 4.0
"""
COMPLEX_MTX = b"""%%MatrixMarket matrix coordinate complex general
% stands in for Chevron/Chevron2
3 3 4
1 1 2.5 1.0
2 2 3.5 -1.0
3 3 4.5 0.5
1 3 -1.0 2.0
"""


def make_archive(name, mtx, extra=True):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        def add(path, data):
            info = tarfile.TarInfo(path)
            info.size = len(data)
            info.mtime = 0
            tar.addfile(info, io.BytesIO(data))
        add(f"{name}/{name}.mtx", mtx)
        if extra:  # SuiteSparse archives often hold right-hand sides etc. as well
            add(f"{name}/{name}_b.mtx", b"%%MatrixMarket matrix array real general\n1 1\n1.0\n")
    # pad with an incompressible tail inside a third member so that "half way" means something
    return buf.getvalue()


class Server:
    """Serves files from `root` under three prefixes: /ok (honours Range), /norange (ignores
    it), /flaky (like /ok, but the next `broken` responses stop half way and close)."""

    def __init__(self, root):
        self.root = root
        self.ranges = []
        self.broken = 10 ** 9  # how many more /flaky responses to cut
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_GET(self):
                prefix, _, rest = self.path.lstrip("/").partition("/")
                path = os.path.join(server.root, rest)
                if not os.path.isfile(path):
                    self.send_error(404)
                    return
                data = read(path, "rb")
                rng = self.headers.get("Range")
                server.ranges.append((prefix, rest, rng))
                start = 0
                if rng and prefix in ("ok", "flaky"):
                    start = int(rng.split("=")[1].split("-")[0])
                    if start >= len(data):
                        self.send_response(416)
                        self.send_header("Content-Range", f"bytes */{len(data)}")
                        self.end_headers()
                        return
                    self.send_response(206)
                    self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
                else:
                    self.send_response(200)
                body = data[start:]
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if prefix == "flaky" and server.broken > 0:
                    server.broken -= 1
                    self.wfile.write(body[: len(body) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(body)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, prefix):
        return f"http://127.0.0.1:{self.port}/{prefix}"

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def read(path, mode="r"):
    with open(path, mode) as f:
        return f.read()


def sha256(data):
    return hashlib.sha256(data).hexdigest()


class MatrixPy(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="amgt-matrix-test-")
        cls.www = os.path.join(cls.tmp, "www")
        # spmsrtls: real, padded with a large incompressible member so the flaky server's
        # "half" lies well inside the gzip stream.
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w:gz") as tar:
            for path, data in (("spmsrtls/spmsrtls.mtx", REAL_MTX),
                               ("spmsrtls/spmsrtls_b.mtx", os.urandom(200000))):
                info = tarfile.TarInfo(path)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
        cls.spmsrtls = buf.getvalue()
        cls.chevron = make_archive("Chevron2", COMPLEX_MTX)
        cls.thermal = make_archive("thermal1", REAL_MTX.replace(b"spmsrtls", b"thermal1"))
        for group, name, data in (("GHS_indef", "spmsrtls", cls.spmsrtls),
                                  ("Chevron", "Chevron2", cls.chevron),
                                  ("Schmid", "thermal1", cls.thermal)):
            os.makedirs(os.path.join(cls.www, group), exist_ok=True)
            with open(os.path.join(cls.www, group, f"{name}.tar.gz"), "wb") as f:
                f.write(data)
        cls.server = Server(cls.www)
        # A manifest copy: `pin` must not touch the repository's.
        cls.manifest = os.path.join(cls.tmp, "MANIFEST.tsv")
        shutil.copy(os.path.join(ROOT, "datasets", "MANIFEST.tsv"), cls.manifest)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def setUp(self):
        self.data = tempfile.mkdtemp(prefix="data-", dir=self.tmp)

    def run_py(self, *args, ok=True):
        env = dict(os.environ, AMGT_DATA_DIR=self.data, AMGT_MANIFEST=self.manifest)
        env.pop("AMGT_SUITESPARSE_URL", None)
        p = subprocess.run([sys.executable, MATRIX_PY, *args], capture_output=True, text=True,
                           env=env, timeout=120)
        if ok:
            self.assertEqual(p.returncode, 0, f"{args}:\n{p.stdout}\n{p.stderr}")
        return p

    def test_fetch_records_and_verifies(self):
        self.run_py("fetch", "spmsrtls", "--base-url", self.server.url("ok"))
        path = os.path.join(self.data, "spmsrtls.mtx.gz")
        with gzip.open(path, "rb") as f:
            self.assertEqual(f.read(), REAL_MTX)
        table = read(os.path.join(self.data, "checksums.tsv"))
        self.assertIn(sha256(self.spmsrtls), table)
        self.assertEqual(self.run_py("path", "spmsrtls").stdout.strip(), path)
        self.assertIn("ok", self.run_py("verify").stdout)
        # present: a second fetch only verifies
        p = self.run_py("fetch", "spmsrtls", "--base-url", self.server.url("ok"))
        self.assertIn("sha256 verified", p.stderr)
        # tampered
        with gzip.open(path, "wb") as f:
            f.write(REAL_MTX.replace(b"4.0", b"5.0"))
        p = self.run_py("verify", ok=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("MISMATCH", p.stdout)
        p = self.run_py("fetch", "spmsrtls", "--base-url", self.server.url("ok"), ok=False)
        self.assertIn("differs", p.stderr)
        # list shows it present
        self.assertIn(path, self.run_py("list").stdout)

    def test_resume_with_range(self):
        self.server.broken = 10 ** 9
        p = self.run_py("fetch", "spmsrtls", "--base-url", self.server.url("flaky"), "--retries", "1",
                        ok=False)
        self.assertEqual(p.returncode, 1, p.stderr)
        part = os.path.join(self.data, "archives", "spmsrtls.tar.gz.part")
        self.assertTrue(os.path.exists(part), p.stderr)
        half = os.path.getsize(part)
        self.assertGreater(half, 0)
        self.assertLess(half, len(self.spmsrtls))
        self.assertIn("kept", p.stderr)
        self.server.broken = 0
        self.server.ranges.clear()
        p = self.run_py("fetch", "spmsrtls", "--base-url", self.server.url("flaky"))
        self.assertIn(("flaky", "GHS_indef/spmsrtls.tar.gz", f"bytes={half}-"), self.server.ranges)
        self.assertIn("resuming at byte", p.stderr)
        archive = os.path.join(self.data, "archives", "spmsrtls.tar.gz")
        self.assertEqual(read(archive, "rb"), self.spmsrtls)
        self.assertFalse(os.path.exists(part))

    def test_retries_within_one_run(self):
        # the first response is cut: the second attempt of the same run resumes
        self.server.broken = 1
        p = self.run_py("fetch", "spmsrtls", "--base-url", self.server.url("flaky"), "--retries", "2")
        self.assertIn("attempt 1 failed", p.stderr)
        self.assertIn("resuming at byte", p.stderr)
        self.assertEqual(read(os.path.join(self.data, "archives", "spmsrtls.tar.gz"), "rb"),
                         self.spmsrtls)

    def test_server_ignoring_range_restarts(self):
        os.makedirs(os.path.join(self.data, "archives"))
        with open(os.path.join(self.data, "archives", "spmsrtls.tar.gz.part"), "wb") as f:
            f.write(b"garbage that must not survive")
        p = self.run_py("fetch", "spmsrtls", "--base-url", self.server.url("norange"))
        self.assertIn("ignored the range", p.stderr)
        self.assertEqual(read(os.path.join(self.data, "archives", "spmsrtls.tar.gz"), "rb"),
                         self.spmsrtls)

    def test_complete_part_and_416(self):
        os.makedirs(os.path.join(self.data, "archives"))
        with open(os.path.join(self.data, "archives", "thermal1.tar.gz.part"), "wb") as f:
            f.write(self.thermal)
        p = self.run_py("fetch", "thermal1", "--base-url", self.server.url("ok"))
        self.assertIn("nothing after byte", p.stderr)
        with gzip.open(os.path.join(self.data, "thermal1.mtx.gz"), "rb") as f:
            self.assertIn(b"4 4 7", f.read())

    def test_pinned_checksum_and_complex(self):
        # Chevron2 has a pinned sha256 in datasets/MANIFEST.tsv; the stand-in differs.
        p = self.run_py("fetch", "Chevron2", "--base-url", self.server.url("ok"), ok=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("--accept-changed", p.stderr)
        self.assertTrue(os.path.exists(os.path.join(self.data, "archives", "Chevron2.tar.gz.bad")))
        self.assertFalse(os.path.exists(os.path.join(self.data, "Chevron2.mtx.gz")))
        os.remove(os.path.join(self.data, "archives", "Chevron2.tar.gz.bad"))
        p = self.run_py("fetch", "Chevron2", "--base-url", self.server.url("ok"), "--accept-changed",
                        "--no-gzip")
        text = read(os.path.join(self.data, "Chevron2.mtx")).splitlines()
        self.assertEqual(text[0], "%%MatrixMarket matrix coordinate real general")
        body = [l for l in text if not l.startswith("%")]
        self.assertEqual(body, ["3 3 4", "1 1 2.5", "2 2 3.5", "3 3 4.5", "1 3 -1.0"])
        self.assertIn("real part", p.stderr)

    def test_file_url_and_pin(self):
        self.run_py("fetch", "thermal1", "--base-url", "file://" + self.www)
        self.assertTrue(os.path.exists(os.path.join(self.data, "thermal1.mtx.gz")))
        p = self.run_py("pin", "thermal1")
        self.assertIn(sha256(self.thermal), p.stdout)
        self.assertIn(sha256(self.thermal), read(self.manifest))
        # now pinned: a changed archive is refused
        shutil.rmtree(self.data)
        os.makedirs(self.data)
        other = os.path.join(self.tmp, "www2", "Schmid")
        os.makedirs(other, exist_ok=True)
        with open(os.path.join(other, "thermal1.tar.gz"), "wb") as f:
            f.write(make_archive("thermal1", REAL_MTX, extra=False))
        p = self.run_py("fetch", "thermal1", "--base-url", "file://" + os.path.dirname(other), ok=False)
        self.assertIn("datasets/MANIFEST.tsv says", p.stderr)

    def test_offline(self):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()  # nothing listens there now
        p = self.run_py("fetch", "spmsrtls", "thermal1", "--base-url", f"http://127.0.0.1:{port}/MM",
                        ok=False)
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertIn("cannot be reached", p.stderr)
        self.assertIn("missing (2): spmsrtls thermal1", p.stderr)
        self.assertIn("generated problems", p.stderr)
        self.assertIn("jump7", p.stderr)
        p = self.run_py("path", "spmsrtls", ok=False)
        self.assertEqual(p.returncode, 1)
        self.assertIn("fetch spmsrtls", p.stderr)

    def test_silent_server_counts_as_offline(self):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        s.listen(8)  # accepts connections (kernel backlog) but never answers
        try:
            p = self.run_py("fetch", "spmsrtls", "thermal1", "--base-url",
                            f"http://127.0.0.1:{s.getsockname()[1]}/MM", "--timeout", "1",
                            "--retries", "2", ok=False)
        finally:
            s.close()
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertIn("nothing more was tried", p.stderr)
        self.assertIn("missing (2)", p.stderr)

    def test_not_found(self):
        os.rename(os.path.join(self.www, "Schmid", "thermal1.tar.gz"),
                  os.path.join(self.www, "Schmid", "hidden.tar.gz"))
        try:
            p = self.run_py("fetch", "thermal1", "--base-url", self.server.url("ok"), ok=False)
        finally:
            os.rename(os.path.join(self.www, "Schmid", "hidden.tar.gz"),
                      os.path.join(self.www, "Schmid", "thermal1.tar.gz"))
        self.assertEqual(p.returncode, 1)
        self.assertIn("404", p.stderr)

    def test_generate_and_suite(self):
        out = self.run_py("generate", "jump7", "aniso7", "--rows", "1e4,1e6").stdout
        self.assertIn("--problem jump7 --n 22", out)
        self.assertIn("--problem aniso7 --n 100", out)
        out = self.run_py("generate", "systems3", "--n", "10").stdout
        self.assertIn("rows       3000", out)
        # suite with a fetched matrix of the paper and the generated kinds
        self.run_py("fetch", "thermal1", "--base-url", self.server.url("ok"))
        out = self.run_py("suite", "--set", "paper,generated", "--rows", "8000", "--kinds",
                          "laplace7,jump7").stdout.splitlines()
        self.assertEqual(out[0].split("\t")[0], "thermal1")
        self.assertIn("thermal1.mtx.gz", out[0])
        self.assertEqual([l.split("\t")[0] for l in out[1:]], ["laplace7-n20", "jump7-n20"])
        out = self.run_py("suite", "--set", "generated", "--rows", "1000", "--only", "^sys").stdout
        self.assertEqual(out.strip(), "systems3-n7\t--problem systems3 --n 7")


if __name__ == "__main__":
    unittest.main()
