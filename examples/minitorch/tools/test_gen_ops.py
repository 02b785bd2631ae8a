#!/usr/bin/env python3
"""Tests for gen_ops.py (stdlib unittest; run by ctest as gen_ops_tests)."""
from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
GENERATOR = HERE / "gen_ops.py"
TEMPLATES = HERE / "templates"
OPS = HERE.parent / "ops.toml"

SMALL_OPS = """
[[op]]
name = "scale"
signature = "(Tensor x, float factor, Tensor! out) -> ()"
backends = ["cpu", "cuda"]
doc = "out = factor * x"

[[op]]
name = "clip"
signature = "( Tensor  x , Tensor!  out )->()"
backends = ["cpu"]
"""


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(GENERATOR), "--templates", str(TEMPLATES), *args],
                          capture_output=True, text=True, check=False)


def cmake_lists(path: Path) -> dict[str, list[str]]:
    """Parses the set(NAME "a" "b") blocks gen_ops.py writes."""
    lists: dict[str, list[str]] = {}
    for m in re.finditer(r"set\((\w+)\n(.*?)\)", path.read_text(), re.S):
        lists[m.group(1)] = re.findall(r'"([^"]+)"', m.group(2))
    return lists


class GenOpsTest(unittest.TestCase):
    def setUp(self) -> None:
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = Path(self._tmp.name)

    def tearDown(self) -> None:
        self._tmp.cleanup()

    def write_ops(self, text: str) -> Path:
        path = self.tmp / "ops.toml"
        path.write_text(text)
        return path

    def generated_files(self, root: Path) -> set[str]:
        return {p.as_posix() for p in root.rglob("*") if p.is_file()}

    def test_dry_run_lists_exactly_what_a_real_run_writes(self) -> None:
        out = self.tmp / "gen"
        deps = self.tmp / "deps.cmake"
        r = run("--ops", str(OPS), "--install-dir", str(out), "--dry-run",
                "--output-dependencies", str(deps))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertFalse(out.exists(), "a dry run must not write generated files")
        lists = cmake_lists(deps)
        listed = set(lists["mt_generated_outputs"])
        self.assertEqual(listed, set(lists["mt_generated_headers"])
                         | set(lists["mt_generated_cpu_sources"])
                         | set(lists["mt_generated_cuda_sources"]))
        r = run("--ops", str(OPS), "--install-dir", str(out))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(self.generated_files(out), listed)

    def test_dry_run_lists_the_generator_inputs(self) -> None:
        deps = self.tmp / "deps.cmake"
        r = run("--ops", str(OPS), "--install-dir", str(self.tmp / "gen"), "--dry-run",
                "--output-dependencies", str(deps))
        self.assertEqual(r.returncode, 0, r.stderr)
        inputs = {Path(p).resolve() for p in cmake_lists(deps)["mt_generator_inputs"]}
        expected = {OPS.resolve(), GENERATOR} | {p.resolve() for p in TEMPLATES.glob("*.in")}
        self.assertEqual(inputs, expected)

    def test_one_header_pair_per_op_in_ops_toml(self) -> None:
        deps = self.tmp / "deps.cmake"
        ops = self.write_ops(SMALL_OPS)
        r = run("--ops", str(ops), "--install-dir", str(self.tmp / "gen"), "--dry-run",
                "--output-dependencies", str(deps))
        self.assertEqual(r.returncode, 0, r.stderr)
        names = sorted(Path(p).name for p in cmake_lists(deps)["mt_generated_headers"])
        self.assertEqual(names, ["all.h", "clip.h", "clip_native.h", "op_list.h",
                                 "registration.h", "scale.h", "scale_native.h"])

    def test_backends_option_changes_the_outputs(self) -> None:
        deps = self.tmp / "deps.cmake"
        r = run("--ops", str(OPS), "--install-dir", str(self.tmp / "gen"), "--dry-run",
                "--backends", "cpu", "--output-dependencies", str(deps))
        self.assertEqual(r.returncode, 0, r.stderr)
        lists = cmake_lists(deps)
        self.assertNotIn("mt_generated_cuda_sources", lists)
        self.assertFalse(any("RegisterCUDA" in p for p in lists["mt_generated_outputs"]))

    def test_rerun_rewrites_nothing_and_an_edit_rewrites_only_its_op(self) -> None:
        out = self.tmp / "gen"
        ops = self.write_ops(SMALL_OPS)
        self.assertEqual(run("--ops", str(ops), "--install-dir", str(out)).returncode, 0)
        r = run("--ops", str(ops), "--install-dir", str(out), "--verbose")
        self.assertIn("0 of 10 files changed", r.stdout)
        self.write_ops(SMALL_OPS.replace('doc = "out = factor * x"', 'doc = "multiplies"'))
        r = run("--ops", str(ops), "--install-dir", str(out), "--verbose")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("1 of 10 files changed", r.stdout)
        self.assertIn("scale.h", r.stdout)

    def test_generated_code_content(self) -> None:
        out = self.tmp / "gen"
        ops = self.write_ops(SMALL_OPS)
        self.assertEqual(run("--ops", str(ops), "--install-dir", str(out)).returncode, 0)
        native = (out / "include/mt/ops/scale_native.h").read_text()
        self.assertIn("void scale_cpu(const Tensor& x, float factor, Tensor& out);", native)
        self.assertIn("void scale_cuda(const Tensor& x, float factor, Tensor& out);", native)
        self.assertNotIn("clip_cuda", (out / "include/mt/ops/clip_native.h").read_text())
        cuda = (out / "src/RegisterCUDA.cpp").read_text()
        self.assertIn("&native::scale_cuda", cuda)
        self.assertNotIn("clip", cuda)
        # Spacing in ops.toml does not change the canonical schema string.
        self.assertIn('"(Tensor x, Tensor! out) -> ()"', (out / "src/RegisterCPU.cpp").read_text())
        operators = (out / "src/Operators.cpp").read_text()
        self.assertIn('check_device("scale", "out", out, device, "x");', operators)

    def assert_error(self, ops_text: str, *fragments: str) -> None:
        ops = self.write_ops(ops_text)
        out = self.tmp / "gen"
        r = run("--ops", str(ops), "--install-dir", str(out), "--dry-run",
                "--output-dependencies", str(self.tmp / "deps.cmake"))
        self.assertEqual(r.returncode, 1, r.stderr)
        lines = r.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, r.stderr)
        self.assertTrue(lines[0].startswith("gen_ops.py: error: "), lines[0])
        for fragment in fragments:
            self.assertIn(fragment, lines[0])
        self.assertFalse((self.tmp / "deps.cmake").exists())

    def test_errors_are_one_line_and_name_the_problem(self) -> None:
        op = '[[op]]\nname = "f"\nsignature = "{sig}"\nbackends = {backends}\n'
        self.assert_error(op.format(sig="(Tensr x) -> ()", backends='["cpu"]'), "'Tensr'", "op 'f'")
        self.assert_error(op.format(sig="(float x) -> ()", backends='["cpu"]'), "no Tensor argument")
        self.assert_error(op.format(sig="(Tensor x) -> Tensor", backends='["cpu"]'),
                          "not of the form")
        self.assert_error(op.format(sig="(Tensor x, Tensor x) -> ()", backends='["cpu"]'),
                          "'x' appears twice")
        self.assert_error(op.format(sig="(Tensor x) -> ()", backends='["cpu", "rocm"]'),
                          "unknown backend 'rocm'")
        self.assert_error(op.format(sig="(Tensor x) -> ()", backends='[]'), "'backends'")
        self.assert_error(op.format(sig="(Tensor x) -> ()", backends='["cpu"]') * 2,
                          "declared twice")
        self.assert_error('[[op]]\nname = "f"\nbackends = ["cpu"]\n', "'signature'")
        self.assert_error('[[op]]\nname = "f-g"\n', "C++ identifier")
        self.assert_error('[[op]\nname = "f"\n', "not valid TOML")
        self.assert_error('[[operator]]\nname = "f"\n', "unknown top-level key")
        self.assert_error('# nothing\n', "no [[op]] entries")

    def test_missing_ops_file(self) -> None:
        r = run("--ops", str(self.tmp / "absent.toml"), "--install-dir", str(self.tmp / "gen"),
                "--dry-run")
        self.assertEqual(r.returncode, 1)
        self.assertIn("absent.toml: file not found", r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=1)
