"""Python bindings (python/pte) on corpus models, run by tests/cli/python_bindings.sh.

Expected values: the corpus's golden I/O (io/, MANIFEST.md "Other known inputs/outputs"), values
derived by hand from what MANIFEST.md says each model computes, numpy at test time, and the
outputs of `pte run --output-dir` (the CLI, a separate program) on the same inputs. Needs numpy
(Debian python3-numpy): a missing numpy fails the test.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import pte

CORPUS = os.environ["PTE_CORPUS"]
CLI = os.environ["PTE_CLI"]
TMP = os.environ.get("PTE_TMP") or tempfile.gettempdir()


def corpus(name):
    path = os.path.join(CORPUS, name)
    if not os.path.exists(path):
        raise AssertionError("corpus file missing: " + path)
    return path


def golden(name, dtype=np.float32):
    return np.fromfile(corpus(os.path.join("io", name)), dtype=dtype)


def cli_run(model, inputs, method="forward", data=None):
    """`pte run` with inputs written as .npy files; returns the outputs it saved (.npy)."""
    with tempfile.TemporaryDirectory(dir=TMP) as d:
        cmd = [CLI, "run", model, "--method", method, "--output-dir", d, "--json"]
        if data:
            cmd += ["--data", data]
        for i, a in enumerate(inputs):
            p = os.path.join(d, "in%d.npy" % i)
            np.save(p, a)
            cmd += ["--input", p]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            raise AssertionError("%s failed (%d): %s %s" % (" ".join(cmd), r.returncode, r.stdout, r.stderr))
        doc = json.loads(r.stdout)
        return [np.load(os.path.join(d, "%s.output%d.npy" % (method, o["index"]))) for o in doc["outputs"]]


class Golden(unittest.TestCase):
    def test_add_model_golden_and_cli(self):
        x = golden("arduino_AddModel.input0.float32.bin")
        want = golden("arduino_AddModel.expected_output0.float32.bin")
        np.testing.assert_array_equal(x, np.array([1, 2, 3], np.float32))  # AddModel.ino's input
        for loader in ("mmap", "file", "buffer"):
            with pte.load(corpus("arduino_AddModel.pte"), loader=loader) as prog:
                self.assertEqual(prog.methods, ("forward",))
                out = prog.forward(x)
                self.assertEqual(len(out), 1)
                self.assertEqual(out[0].dtype, np.float32)
                self.assertEqual(out[0].shape, (3,))
                np.testing.assert_array_equal(out[0], want)
        cli = cli_run(corpus("arduino_AddModel.pte"), [x])
        np.testing.assert_array_equal(cli[0], want)

    def test_lstm_golden_and_cli(self):
        cat = golden("numpyrt_lstm.inputs_concat.float32.bin")
        want = golden("numpyrt_lstm.expected_output0.float32.bin").reshape(5, 2, 3)
        x, h0, c0 = cat[:40].reshape(5, 2, 4), cat[40:46].reshape(2, 3), cat[46:].reshape(2, 3)
        prog = pte.load(corpus("numpyrt_lstm.pte"))
        out = prog.forward(x, h0, c0)
        self.assertEqual([o.shape for o in out], [(5, 2, 3), (2, 3), (2, 3)])
        np.testing.assert_allclose(out[0], want, rtol=1e-4, atol=1e-4)
        # hn is the last time step of the output (an LSTM identity, independent of pte)
        np.testing.assert_allclose(out[1], out[0][-1], rtol=0, atol=0)
        cli = cli_run(corpus("numpyrt_lstm.pte"), [x, h0, c0])
        for a, b in zip(out, cli):
            np.testing.assert_array_equal(a, b)
        prog.close()

    def test_external_data(self):
        # etrs_data_map_model: 3x + 2 with its weights in a .ptd (MANIFEST: ones -> 5)
        ptd = corpus("etrs_data_map__default_external_constant.ptd")
        prog = pte.load(corpus("etrs_data_map_model.pte"), data=ptd)
        x = np.array([[1, 1], [1, 1]], np.float32)
        np.testing.assert_array_equal(prog.forward(x)[0], np.full((2, 2), 5, np.float32))
        x = np.array([[0, 1], [-2, 10]], np.float32)
        np.testing.assert_allclose(prog.forward(x)[0], 3 * x + 2, rtol=0, atol=0)
        np.testing.assert_array_equal(cli_run(corpus("etrs_data_map_model.pte"), [x], data=ptd)[0], 3 * x + 2)

    def test_methods_and_run(self):
        # numpyrt_multi: two methods, each x + 1 (MANIFEST)
        prog = pte.load(corpus("numpyrt_multi.pte"))
        self.assertEqual(prog.methods, ("double", "forward"))
        x = np.array([1.5, -3], np.float32)
        np.testing.assert_array_equal(prog.run("double", x)[0], x + 1)
        np.testing.assert_array_equal(prog.run("forward", x)[0], x + 1)
        np.testing.assert_array_equal(cli_run(corpus("numpyrt_multi.pte"), [x], method="double")[0], x + 1)
        meta = prog.method_meta("double")
        self.assertEqual(meta["inputs"][0]["dtype"], "float32")
        self.assertEqual(meta["inputs"][0]["shape"], [2])

    def test_dynamic_shapes(self):
        # numpyrt_dynamic: 2x on float32[<=8] (XNNPACK delegate)
        prog = pte.load(corpus("numpyrt_dynamic.pte"))
        for n in (1, 5, 8):
            x = np.arange(n, dtype=np.float32) - 2.5
            y = prog.forward(x)[0]
            self.assertEqual(y.shape, (n,))
            np.testing.assert_array_equal(y, 2 * x)
        with self.assertRaises(pte.NotSupported) as cm:
            prog.forward(np.zeros(9, np.float32))
        self.assertIn("expected float32[<=8], got float32[9]", str(cm.exception))

    def test_scalar_inputs(self):
        # djl_spike_prim_input: x * 2.0, the 2.0 a traced Double input
        prog = pte.load(corpus("djl_spike_prim_input.pte"))
        x = np.array([1, -2, 0.5, 8], np.float32)
        np.testing.assert_array_equal(prog.forward(x)[0], x * 2)
        np.testing.assert_array_equal(prog.forward(x, 2.0)[0], x * 2)
        with self.assertRaises(pte.InvalidArgument):
            prog.forward(x, 3.0)  # not the traced value (as upstream)

    def test_mixed_dtypes(self):
        # numpyrt_dtypes: int64 and float32 inputs, each doubled (MANIFEST: 2a, 2b)
        prog = pte.load(corpus("numpyrt_dtypes.pte"))
        a, b = np.array([21], np.int64), np.array([1.25], np.float32)
        out = prog.forward(a, b)
        self.assertEqual(out[0].dtype, np.int64)
        self.assertEqual(out[1].dtype, np.float32)
        np.testing.assert_array_equal(out[0], 2 * a)
        np.testing.assert_array_equal(out[1], 2 * b)
        # Python lists take the input's dtype
        out = prog.forward([4], [0.5])
        np.testing.assert_array_equal(out[0], np.array([8], np.int64))


class Dtypes(unittest.TestCase):
    def test_bfloat16_conversion(self):
        # bfloat16 = the top 16 bits of a float32, rounded to nearest even (hand-derived bits)
        x = np.array([1.0, -2.0, 1.00390625, 1.01171875, 3.0e38], np.float32)
        bits = pte._to_bf16(x)
        self.assertEqual([hex(b) for b in bits], ["0x3f80", "0xc000", "0x3f80", "0x3f82", "0x7f62"])
        np.testing.assert_array_equal(pte._from_bf16(np.array([0x3F80, 0xC000, 0x3F82], np.uint16)),
                                      np.array([1.0, -2.0, 1.015625], np.float32))
        self.assertTrue(np.isnan(pte._from_bf16(pte._to_bf16(np.array([np.nan], np.float32))))[0])

    def test_numpy_dtype_map(self):
        for t, name in ((np.uint8, "uint8"), (np.int8, "int8"), (np.int16, "int16"), (np.int32, "int32"),
                        (np.int64, "int64"), (np.float16, "float16"), (np.float32, "float32"),
                        (np.float64, "float64"), (np.bool_, "bool"), (np.uint16, "uint16"),
                        (np.uint32, "uint32"), (np.uint64, "uint64")):
            self.assertEqual(pte._dtype_name(pte._PTE_OF[np.dtype(t)]), name)


class Errors(unittest.TestCase):
    def test_subclasses_carry_status(self):
        for name, code in (("Internal", 0x01), ("InvalidState", 0x02), ("InvalidArgument", 0x12),
                           ("OperatorMissing", 0x14), ("NotFound", 0x20), ("AccessFailed", 0x22),
                           ("InvalidProgram", 0x23), ("InvalidExternalData", 0x24), ("OutOfResources", 0x25),
                           ("NotSupported", 0x10), ("MemoryAllocationFailed", 0x21)):
            cls = getattr(pte, name)
            self.assertTrue(issubclass(cls, pte.Error))
            self.assertEqual(cls.status, code)
            self.assertEqual(cls.name, name)

    def test_missing_file(self):
        with self.assertRaises(pte.AccessFailed) as cm:
            pte.load(os.path.join(TMP, "no-such-model.pte"))
        e = cm.exception
        self.assertIsInstance(e, pte.Error)
        self.assertEqual((e.status, e.name), (0x22, "AccessFailed"))
        self.assertIn("no-such-model.pte", str(e))

    def test_not_a_program(self):
        with self.assertRaises(pte.InvalidProgram) as cm:
            pte.load(corpus("upstream_android_xor.ptd"))
        self.assertEqual(cm.exception.status, 0x23)
        with tempfile.NamedTemporaryFile(dir=TMP, suffix=".pte") as f:
            f.write(b"\0" * 100)
            f.flush()
            with self.assertRaises(pte.InvalidProgram):
                pte.load(f.name)

    def test_bad_inputs(self):
        prog = pte.load(corpus("arduino_AddModel.pte"))
        with self.assertRaises(pte.InvalidArgument) as cm:
            prog.forward(np.array([1, 2, 3], np.int64))
        self.assertIn("method 'forward' input 0: expected float32[3], got int64[3]", str(cm.exception))
        with self.assertRaises(pte.NotSupported) as cm:
            prog.forward(np.zeros(4, np.float32))
        self.assertIn("expected float32[3], got float32[4]", str(cm.exception))
        with self.assertRaises(pte.InvalidArgument) as cm:
            prog.forward(np.zeros((1, 3), np.float32))
        self.assertIn("rank differs", str(cm.exception))
        with self.assertRaises(pte.InvalidArgument) as cm:
            prog.forward(np.zeros(3, np.float32), np.zeros(3, np.float32))
        self.assertIn("takes 1 input, 2 given", str(cm.exception))
        with self.assertRaises(pte.InvalidArgument) as cm:
            prog.run("backward", np.zeros(3, np.float32))
        self.assertIn("no method 'backward'", str(cm.exception))
        with self.assertRaises(pte.InvalidArgument) as cm:
            prog.forward("one two three")
        self.assertIn("method 'forward' input 0: expected float32[3]", str(cm.exception))
        # a non-contiguous view is accepted (copied to C order first)
        y = prog.forward(np.arange(6, dtype=np.float32)[::2])[0]
        np.testing.assert_array_equal(y, np.array([1, 3, 5], np.float32))

    def test_missing_backend(self):
        # djl_openvino_tiny.pte delegates to OpenvinoBackend, which pte does not ship
        prog = pte.load(corpus("djl_openvino_tiny.pte"))
        self.assertEqual(prog.method_meta()["delegates"], ["OpenvinoBackend"])
        with self.assertRaises(pte.NotFound) as cm:
            prog.forward(np.ones((1, 8), np.float32))
        self.assertIn("backend 'OpenvinoBackend'", str(cm.exception))
        meta = pte.load(corpus("djl_spike_prim_input.pte")).method_meta()
        self.assertEqual([i["kind"] for i in meta["inputs"]], ["Tensor", "Double"])

    def test_missing_external_data(self):
        prog = pte.load(corpus("etrs_data_map_model.pte"))
        with self.assertRaises(pte.InvalidState) as cm:
            prog.forward(np.ones((2, 2), np.float32))
        self.assertIn("data_path", str(cm.exception))

    def test_limits_and_closed(self):
        prog = pte.load(corpus("arduino_AddModel.pte"), max_memory=4)
        with self.assertRaises(pte.OutOfResources):
            prog.forward(np.ones(3, np.float32))
        prog.close()
        with self.assertRaises(pte.InvalidState):
            prog.methods
        with self.assertRaises(pte.InvalidArgument):
            pte.load(corpus("arduino_AddModel.pte"), loader="tape")


class InspectPrepare(unittest.TestCase):
    def test_inspect_matches_cli(self):
        for name in ("arduino_AddModel.pte", "numpyrt_lstm.pte", "numpyrt_dynamic.pte", "numpyrt_multi.pte"):
            path = corpus(name)
            info = pte.inspect(path)
            r = subprocess.run([CLI, "inspect", "--json", path], stdout=subprocess.PIPE, text=True, check=True)
            cli = json.loads(r.stdout)
            self.assertEqual(info["file_size"], os.path.getsize(path))
            self.assertEqual(info["file_size"], cli["file_size"])
            for k in ("header_length", "program_size", "segment_base_offset"):
                self.assertEqual(info["header"][k], cli["header"][k], name)
            self.assertEqual(info["segments"], cli["segments"], name)
            self.assertEqual([m["name"] for m in info["methods"]], [m["name"] for m in cli["methods"]])
            for m, c in zip(info["methods"], cli["methods"]):
                self.assertEqual([i["shape"] for i in m["inputs"]], [i["sizes"] for i in c["inputs"]], name)
                self.assertEqual([i["dim_order"] for i in m["inputs"]], [i["dim_order"] for i in c["inputs"]])
                self.assertEqual([i["shape"] for i in m["outputs"]], [i["sizes"] for i in c["outputs"]], name)
                self.assertEqual(m["planned_buffers"], c["non_const_buffer_sizes"][1:], name)
                self.assertEqual(m["delegates"], [d["id"] for d in c["delegates"]], name)
        info = pte.inspect(corpus("arduino_AddModel.pte"))
        self.assertEqual(info["methods"][0]["inputs"][0]["dtype"], "float32")
        with self.assertRaises(pte.NotSupported):
            pte.inspect(corpus("module_test_bundled_program.bpte"))
        with self.assertRaises(pte.AccessFailed):
            pte.load(os.path.join(TMP, "missing.pte"))

    def test_inspect_named_data_and_ptd(self):
        for name in ("djl_stress_mlp.pte", "simple-torch-model.pte", "upstream_android_xor.ptd",
                     "etrs_data_map__default_external_constant.ptd"):
            path = corpus(name)
            info = pte.inspect(path)
            cli = json.loads(subprocess.run([CLI, "inspect", "--json", path], stdout=subprocess.PIPE, text=True,
                                            check=True).stdout)
            self.assertEqual(info["format"], cli["format"], name)
            self.assertEqual(info["segments"], cli["segments"], name)
            self.assertEqual([e["key"] for e in info["named_data"]], [e["key"] for e in cli["named_data"]], name)
            self.assertTrue(len(info["named_data"]) > 0, name)
            if info["format"] == "ptd":
                for e, c in zip(info["named_data"], cli["named_data"]):
                    self.assertEqual(e["shape"], c["sizes"], name)
                    self.assertEqual(e["dim_order"], c["dim_order"], name)
                    self.assertEqual(e["nbytes"], c["size"], name)

    def test_prepare_then_run(self):
        # an XNNPACK MLP made by `pte synth` (weights in named data): prepare packs them into the
        # file; the prepared file computes what the portable model of the same seed computes
        # (`pte run` of that model, through the portable kernels: another code path)
        with tempfile.TemporaryDirectory(dir=TMP) as d:
            xnn, portable, out = (os.path.join(d, n) for n in ("xnn.pte", "portable.pte", "prepared.pte"))
            for path, deleg in ((xnn, "xnnpack"), (portable, "none")):
                subprocess.run([CLI, "synth", "mlp", "-o", path, "--widths", "16,8,4", "--seed", "3",
                                "--delegate", deleg], check=True, stdout=subprocess.DEVNULL)
            self.assertEqual(pte.prepare(xnn, out), out)
            with open(xnn, "rb") as a, open(out, "rb") as b:
                self.assertTrue(a.read() != b.read(), "prepare left the XNNPACK model unchanged")
            x = np.linspace(-1, 1, 16, dtype=np.float32).reshape(1, 16)
            want = cli_run(portable, [x])[0]
            got = pte.load(out).forward(x)[0]
            self.assertEqual(got.shape, (1, 4))
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
            self.assertEqual(sorted(os.listdir(d)), ["portable.pte", "prepared.pte", "xnn.pte"])  # no temp/lock left
            with self.assertRaises(pte.AccessFailed):
                pte.prepare(os.path.join(d, "missing.pte"), os.path.join(d, "x.pte"))


class Readme(unittest.TestCase):
    def test_readme_python_example(self):
        # the ```python block of README.md's "## Python" section, run as written next to a
        # model.pte that is arduino_AddModel.pte; y must then be the golden [2, 3, 4]
        src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "README.md")
        with open(src) as f:
            text = f.read()
        sec = text.index("## Python")
        start = text.index("```python\n", sec) + len("```python\n")
        code = text[start:text.index("\n```", start)]
        with tempfile.TemporaryDirectory(dir=TMP) as d:
            os.symlink(corpus("arduino_AddModel.pte"), os.path.join(d, "model.pte"))
            cwd = os.getcwd()
            os.chdir(d)
            try:
                scope = {}
                exec(compile(code, "README.md", "exec"), scope)
            finally:
                os.chdir(cwd)
            np.testing.assert_array_equal(scope["y"], golden("arduino_AddModel.expected_output0.float32.bin"))
            self.assertTrue(os.path.exists(os.path.join(d, "model.prepared.pte")))


if __name__ == "__main__":
    print("pte library:", pte.library_path, file=sys.stderr)
    unittest.main(verbosity=2)
