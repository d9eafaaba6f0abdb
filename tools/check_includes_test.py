#!/usr/bin/env python3
"""Tests of tools/check_includes.py on small source trees written to a temporary folder."""
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_includes  # noqa: E402

# Includes that follow the direction, one file each.
GOOD = {
    "datasets/dataset.h": ["datasets/random.h", "vector"],
    "engine/api/learner.h": ["datasets/dataset.h"],
    "engine/common/memory_limit.cc": ["engine/api/engine_error.h"],
    "engine/model/network.h": ["engine/common/aligned.h", "engine/api/learner.h"],
    "engine/lsh/neuron_selector.h": ["engine/model/parameters.h"],
    "engine/train/trainer.h": ["engine/lsh/neuron_selector.h", "engine/model/network.h"],
    "engine/train/tests/trainer_test.cc": ["engine/api/tests/test_util.h", "datasets/tests/test_paths.h"],
    "engine/bench/engine_bench.cc": ["engine/train/trainer.h"],
    "baselines/blas_learner.cc": ["engine/model/inference.h", "baselines/temp_dir.h"],
    "baselines/tests/fairness_test.cc": ["engine/train/sparse_learner.h"],
    "harness/record/rows.cc": ["harness/record/cell_json.h", "engine/api/engine_family.h"],
    "harness/measure/measure.cc": ["engine/train/families.h", "harness/record/cell_result.h"],
    "harness/run/runner.cc": ["baselines/temp_dir.h", "harness/proc/subprocess.h",
                              "harness/record/rows.h", "harness/report/report.h"],
    "harness/report/report.cc": ["harness/record/rows.h", "harness/proc/subprocess.h"],
    "harness/history/check.cc": ["harness/history/stats.h", "harness/report/compare.h",
                                 "harness/record/files.h"],
    "harness/cli/main.cc": ["harness/run/runner.h", "harness/measure/measure.h"],
    "harness/cli/tests/cli_test.cc": ["harness/cli/command_line.h"],
    "harness/report/tests/report_test.cc": ["harness/run/runner.h", "harness/cli/engines.h",
                                            "harness/report/tests/report_fixture.h"],
    "fuzz/command_line.h": ["harness/cli/command_line.h"],
}

# (file, include, what the error must say), each against the direction.
BAD = [
    ("engine/model/network.h", "engine/lsh/neuron_selector.h", "engine/model/ may include only"),
    ("engine/api/spec.cc", "engine/train/sparse_learner.h", "engine/api/ may include only"),
    ("engine/common/aligned.h", "engine/model/parameters.h", "engine/common/ may include only"),
    ("engine/lsh/lsh_tables.h", "engine/train/trainer.h", "engine/lsh/ may include only"),
    ("datasets/reader.h", "engine/api/engine_error.h", "datasets/ may include only"),
    ("baselines/blas_learner.cc", "engine/lsh/hash_family.h", "baselines/ may include only"),
    ("baselines/blas_learner.cc", "harness/proc/subprocess.h", "baselines/ may include only"),
    ("engine/train/trainer.cc", "harness/record/rows.h", "engine/train/ may include only"),
    ("harness/report/report.cc", "harness/cli/commands.h", "harness/report/ may include only"),
    # harness/'s rooms: the record below everything, the report on records only, the run
    # reaching the report through its one entry point.
    ("harness/record/rows.cc", "harness/run/matrix.h", "harness/record/ may include only"),
    ("harness/record/rows.cc", "engine/train/families.h", "harness/record/ may include only"),
    ("harness/report/report.cc", "harness/run/context.h", "harness/report/ may include only"),
    ("harness/report/report.cc", "harness/measure/external/exec_family.h",
     "harness/report/ may include only"),
    ("harness/run/runner.cc", "harness/report/summary.h", "harness/run/ may include only"),
    ("harness/run/runner.cc", "harness/measure/measure.h", "harness/run/ may include only"),
    ("harness/proc/subprocess.cc", "harness/record/files.h", "harness/proc/ may include only"),
    # The history borrows compare's test, nothing else of the report, and never runs cells.
    ("harness/history/check.cc", "harness/report/summary.h", "harness/history/ may include only"),
    ("harness/history/check.cc", "harness/run/runner.h", "harness/history/ may include only"),
    ("engine/model/model_io.cc", "engine/api/tests/test_util.h", "for tests and benchmarks only"),
    ("harness/run/runner.cc", "fuzz/scratch.h", "harness/run/ may include only"),
]


def write_tree(root, files):
    for path, includes in files.items():
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write("#pragma once\n\n")
            for include in includes:
                if "/" in include:
                    f.write(f'#include "{include}"\n')
                else:
                    f.write(f"#include <{include}>\n")


class CheckIncludes(unittest.TestCase):
    def test_a_tree_that_follows_the_direction_passes(self):
        with tempfile.TemporaryDirectory() as root:
            write_tree(root, GOOD)
            self.assertEqual(check_includes.check(root), [])

    def test_each_include_against_the_direction_is_named_with_its_file_and_line(self):
        for path, include, says in BAD:
            with self.subTest(path=path, include=include), tempfile.TemporaryDirectory() as root:
                write_tree(root, GOOD)
                write_tree(root, {path: ["vector", include]})
                errors = check_includes.check(root)
                self.assertEqual(len(errors), 1, errors)
                self.assertIn(f"{path}:4: includes {include}", errors[0])
                self.assertIn(says, errors[0])

    def test_a_source_file_outside_every_room_is_refused(self):
        for path in ("engine/network.h", "engine/kernels/dot.h", "harness/runner.cc",
                     "harness/tests/run_test.cc"):
            with self.subTest(path=path), tempfile.TemporaryDirectory() as root:
                write_tree(root, GOOD)
                write_tree(root, {path: []})
                errors = check_includes.check(root)
                self.assertEqual(len(errors), 1, errors)
                self.assertIn(f"{path}: lies in no folder with a rule", errors[0])

    def test_a_relative_include_of_a_project_file_is_refused(self):
        with tempfile.TemporaryDirectory() as root:
            write_tree(root, GOOD)
            write_tree(root, {"engine/model/parameters.h": [], "engine/model/exact_scorer.h": []})
            with open(os.path.join(root, "engine/model/exact_scorer.h"), "a") as f:
                f.write('#include "parameters.h"\n')
            errors = check_includes.check(root)
            self.assertEqual(len(errors), 1, errors)
            self.assertIn('engine/model/exact_scorer.h:3: includes "parameters.h" by a relative path',
                          errors[0])

    def test_the_command_fails_and_names_the_count(self):
        with tempfile.TemporaryDirectory() as root:
            write_tree(root, GOOD)
            self.assertEqual(check_includes.main(["check_includes.py", root]), 0)
            write_tree(root, {"engine/model/network.h": ["engine/train/trainer.h"]})
            self.assertEqual(check_includes.main(["check_includes.py", root]), 1)


if __name__ == "__main__":
    unittest.main()
