#!/usr/bin/env python3
"""Fails when an #include runs against the project's direction (engine/README.md and
harness/README.md, "Rooms").

usage: tools/check_includes.py [SOURCE_ROOT]   (default: this checkout)

Dependencies flow one way: datasets/ <- the engine's rooms, each on the rooms before it
(api, common, model, lsh, train) <- baselines/ (on the contract and the model only) <-
harness/'s rooms (record and proc <- measure, report <- run, history; the command line, harness/cli/,
on top) and fuzz/. A folder's tests/ and bench/ may include what the folder may, and the
tests/ of each of those. Every C++ file must lie
in a folder with a rule: a file directly in engine/ is in no room and fails. Project
headers are included by their path from the root, so a quoted include that names a file
beside the including one is refused too.
"""
import os
import re
import sys

ROOM_ORDER = ["api", "common", "model", "lsh", "train"]
ENGINE_ROOMS = [f"engine/{room}/" for room in ROOM_ORDER]
TOP_FOLDERS = ("datasets", "engine", "baselines", "harness", "fuzz")
SOURCE_SUFFIXES = (".h", ".hpp", ".cc", ".cpp", ".inc")
SKIPPED_DIRS = {"corpus", "regressions", "build", ".git"}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def base_rules():
    """Folder -> the folders its sources may include (a folder means all below it), and the
    folders below those that they may not."""
    rules = {"datasets/": ["datasets/"]}
    for i, room in enumerate(ENGINE_ROOMS):
        rules[room] = ["datasets/"] + ENGINE_ROOMS[: i + 1]
    rules["engine/bench/"] = ["datasets/", "engine/"]
    rules["baselines/"] = ["datasets/", *ENGINE_ROOMS[:3], "baselines/"]
    # The fairness tests and the benchmarks train our engine beside the baselines.
    rules["baselines/tests/"] = rules["baselines/"] + ["engine/"]
    rules["baselines/bench/"] = rules["baselines/tests/"]
    # harness/'s rooms (harness/README.md): record, proc <- measure, report <- run <- cli. No
    # source file lies directly in harness/. `run` reaches the report through its one entry
    # point, harness/report/report.h; `report` reads records and never includes `run` or `measure`.
    record, proc = "harness/record/", "harness/proc/"
    rules[record] = ["datasets/", "engine/api/", record]
    rules[proc] = [proc]
    rules["harness/measure/"] = ["datasets/", "engine/", "baselines/", record, proc, "harness/measure/"]
    rules["harness/report/"] = ["datasets/", "engine/api/", record, proc, "harness/report/"]
    rules["harness/run/"] = ["datasets/", "engine/api/", "baselines/", record, proc, "harness/run/",
                             "harness/report/report.h"]
    # `history` reads records and keeps the series across commits; it borrows compare's
    # Mann-Whitney test (harness/report/compare.h) and nothing else of the report.
    rules["harness/history/"] = ["datasets/", "engine/api/", record, proc, "harness/history/",
                                 "harness/report/compare.h"]
    harness = ["datasets/", "engine/", "baselines/", "harness/"]
    rules["harness/cli/"] = harness
    # The command line sits on the rooms; only it, the harness's tests and fuzz/ include it.
    refused = {}
    # Each room's tests/ and the benchmarks drive the harness through any room.
    for room in ("record", "proc", "measure", "measure/external", "run", "report", "history", "cli"):
        rules[f"harness/{room}/tests/"] = harness
    rules["harness/bench/"] = harness
    rules["fuzz/"] = ["datasets/", "engine/", "baselines/", "harness/", "fuzz/"]
    return rules, refused


RULES, REFUSED = base_rules()


def rule_folder(path):
    """The longest folder with a rule that holds `path`, or None."""
    parts = path.split("/")[:-1]
    for n in range(len(parts), 0, -1):
        folder = "/".join(parts[:n]) + "/"
        if folder in RULES:
            return folder
    return None


def in_tests(path):
    return any(part in ("tests", "bench") for part in path.split("/")[:-1])


def is_allowed(include, folder, from_tests):
    # Test helpers (a tests/ folder's headers) are for tests and benchmarks only.
    if "tests" in include.split("/")[:-1] and not from_tests:
        return False
    if any(include.startswith(refused) for refused in REFUSED.get(folder, [])):
        return False
    return any(include == allowed or (allowed.endswith("/") and include.startswith(allowed))
               for allowed in RULES[folder])


def source_files(root):
    for top in TOP_FOLDERS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS)
            for name in sorted(filenames):
                if name.endswith(SOURCE_SUFFIXES):
                    yield os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/")


def check_file(root, path):
    folder = rule_folder(path)
    if folder is None:
        return [f"{path}: lies in no folder with a rule (engine/README.md, harness/README.md: "
                "\"Rooms\"): move it into one"]
    allowed = ", ".join(RULES[folder] + [f"not {r}" for r in REFUSED.get(folder, [])])
    from_tests = in_tests(path)
    errors = []
    with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            match = INCLUDE.match(line)
            if not match:
                continue
            quote, include = match.groups()
            top = include.split("/", 1)[0]
            if top not in TOP_FOLDERS:
                beside = os.path.join(root, os.path.dirname(path), include)
                if quote == '"' and os.path.exists(beside):
                    errors.append(f"{path}:{number}: includes \"{include}\" by a relative path; "
                                  "write its path from the source root")
                continue
            if not is_allowed(include, folder, from_tests):
                if is_allowed(include, folder, from_tests=True):
                    why = "a tests/ folder's headers are for tests and benchmarks only"
                else:
                    why = f"{folder} may include only {allowed}"
                errors.append(f"{path}:{number}: includes {include}, against the direction: {why}")
    return errors


def check(root):
    errors = []
    for path in source_files(root):
        errors += check_file(root, path)
    return errors


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    errors = check(root)
    for error in errors:
        print(error, file=sys.stderr)
    if errors:
        print(f"check_includes: {len(errors)} include(s) against the direction "
              "(engine/README.md, \"Rooms\")", file=sys.stderr)
        return 1
    print("check_includes: every #include follows the direction")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
