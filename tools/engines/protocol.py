"""SparseBench's external-engine protocol, version 2 (README.md), for engines written in Python.

An engine is an object with `name`, `version`, `load(message) -> dict`,
`train(message, session)`, `model_bytes()`, `predict(rows, k) -> [[ids...]...]` and
`save(path)`; `run(engine)` speaks the protocol for it. `load` gets the training rows without
their labels, in a file read as a stream (`iter_rows`, one row at a time, or `row_arrays`, flat
arrays), so that an engine holds only what it keeps; `train` reads the labels likewise
(`iter_labels`, `label_arrays`), on the clock. `predict` gets a request's rows PREDICT_BATCH at
a time. `train` calls
`session.pause(epoch, rows, loss)` at every pause the harness planned; when the harness answers
a pause with `stop` (its training budget is spent), `pause` raises StopTraining, which ends
`train` there with the model as it is. Any other exception becomes an `{"op":"error"}` with
its message.
"""
import array
import json
import sys
import traceback

PROTOCOL = 2
# Keys of an exec: spec that are the harness's own (deadlines, input); every engine accepts them.
HARNESS_KEYS = ("hello_seconds", "reply_seconds", "input")
# Rows of a predict file an engine's predict gets at a time: what it holds of them is bounded.
PREDICT_BATCH = 1024


class StopTraining(Exception):
    """Raised by Session.pause when the harness says `stop`; the protocol catches it."""


class EngineError(Exception):
    """A user's mistake (a bad option, data the engine cannot train on): its message is the row's reason."""


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def receive():
    line = sys.stdin.readline()
    if not line:  # the harness has gone: end quietly
        sys.exit(0)
    return json.loads(line)


class JsonLines:
    """A file of `file_format`, version 1: its `header`, then its lines, each a JSON value, one at
    a time as the object is iterated (again from the start on each iteration), so that a reader
    keeps only what it takes from them. A malformed line, or a count the header does not
    announce, is an EngineError naming the file and line."""

    def __init__(self, path, file_format):
        self.path = path
        with open(path, encoding="utf-8") as f:
            self.header = self._header(f.readline(), file_format)

    def _header(self, line, file_format):
        try:
            header = json.loads(line)
        except ValueError:
            header = None
        if not isinstance(header, dict) or header.get("format") != file_format or header.get("version") != 1:
            raise EngineError(f"{self.path}: not a {file_format} file of version 1")
        return header

    def __len__(self):
        return self.header["rows"]

    def __iter__(self):
        count = 0
        with open(self.path, encoding="utf-8") as f:
            f.readline()
            for count, line in enumerate(f, start=1):
                try:
                    yield json.loads(line)
                except ValueError as error:
                    raise EngineError(f"{self.path}:{count + 1}: not a JSON line ({error})") from None
        if count != len(self):
            raise EngineError(f"{self.path}: the header says {len(self)} rows, the file has {count}")


def iter_rows(path):
    """The rows of a sparsebench-rows file, one dict at a time (`.header` holds the header)."""
    return JsonLines(path, "sparsebench-rows")


def iter_labels(path):
    """Each training row's label ids, one list at a time, from the labels file `train` names."""
    return JsonLines(path, "sparsebench-labels")


class Ragged:
    """Rows of numbers as flat arrays: row r's are flat[ptr[r]:ptr[r + 1]] (numpy arrays where
    numpy is installed, else the `array` module's). `flat` holds 32-bit numbers where they fit."""

    def __init__(self, ptr, flat, values=None, text=None):
        self.ptr, self.flat, self.values, self.text = ptr, flat, values, text

    def __len__(self):
        return len(self.ptr) - 1

    def nbytes(self):
        return sum(len(a) * a.itemsize for a in (self.ptr, self.flat, self.values) if a is not None)


def _id_type(limit):
    return "i" if limit <= 2**31 else "q"


def _finish(*parts):
    try:
        import numpy
    except ImportError:
        return parts
    return tuple(numpy.frombuffer(a, dtype=a.typecode) if isinstance(a, array.array) else a for a in parts)


def row_arrays(path, text=False):
    """A rows file as Ragged arrays, read as a stream (ragged_rows)."""
    rows = iter_rows(path)
    return ragged_rows(rows, rows.header["features"], text, path)


def ragged_rows(rows, features=2**31, text=False, name="rows"):
    """Rows (the protocol's dicts, from a file or a predict request) as Ragged arrays: `flat` the
    ids, below `features`, `values` beside them (32-bit floats) and, with `text`, `text` a list of
    each row's raw text."""
    ptr, ids, values = array.array("q", [0]), array.array(_id_type(features)), array.array("f")
    texts = [] if text else None
    for r, row in enumerate(rows):
        if len(row["ids"]) != len(row["values"]):
            raise EngineError(f"{name}: row {r} has {len(row['ids'])} ids and {len(row['values'])} values")
        ids.extend(row["ids"])
        values.extend(row["values"])
        ptr.append(len(ids))
        if text:
            texts.append(row.get("text", ""))
    ptr, ids, values = _finish(ptr, ids, values)
    return Ragged(ptr, ids, values, texts)


def label_arrays(path):
    """A labels file as Ragged arrays, read as a stream: `flat` holds the label ids."""
    rows = iter_labels(path)
    ptr, labels = array.array("q", [0]), array.array(_id_type(rows.header["labels"]))
    for row in rows:
        labels.extend(row)
        ptr.append(len(labels))
    return Ragged(*_finish(ptr, labels))


def batches(items, size):
    """Lists of up to `size` consecutive items of an iterable."""
    batch = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def options(given, defaults):
    """`given` (the spec's key=value strings) over `defaults`, each converted to its default's type."""
    unknown = sorted(set(given) - set(defaults) - set(HARNESS_KEYS))
    if unknown:
        raise EngineError(f"unknown option(s) {', '.join(unknown)}; this engine knows {', '.join(sorted(defaults))}")
    values = dict(defaults)
    for key in defaults.keys() & given.keys():
        try:
            values[key] = type(defaults[key])(given[key])
        except ValueError:
            raise EngineError(f"option {key}={given[key]} is not a {type(defaults[key]).__name__}") from None
    return values


def schedule_text(half_life):
    """The learning-rate schedule in the words of engine/api/train_defaults.h's ScheduleText."""
    if half_life == 0:
        return "constant lr"
    return f"lr holds for {half_life} samples, then halves every {half_life}"


def scheduled_lr(lr, half_life, samples):
    """engine/api/train_defaults.h's ScheduledLr: the rate of the batch after `samples` samples."""
    if half_life == 0 or samples <= half_life:
        return lr
    return lr * 2.0 ** (-(samples - half_life) / half_life)


class Session:
    def __init__(self, engine):
        self.engine = engine

    def pause(self, epoch, rows, loss=None):
        message = {"op": "pause", "epoch": epoch, "rows": rows}
        if loss is not None:
            message["loss"] = loss
        send(message)
        if self.serve(until=("resume", "stop")) == "stop":
            raise StopTraining()

    def predict(self, message):
        """A request's rows, inline or from its file, given to the engine PREDICT_BATCH at a time."""
        if "rows" in message:
            return self.engine.predict(message["rows"], message["k"])
        ids = []
        for rows in batches(iter_rows(message["file"]), PREDICT_BATCH):
            ids.extend(self.engine.predict(rows, message["k"]))
        return ids

    def serve(self, until):
        """Answers requests until one whose op is in `until`; returns that op."""
        while True:
            message = receive()
            op = message.get("op")
            if op in until:
                return op
            if op == "load":
                send({"op": "loaded", **self.engine.load(message)})
            elif op == "train":
                try:
                    self.engine.train(message, self)
                except StopTraining:
                    pass
                send({"op": "done", "model_bytes": self.engine.model_bytes()})
            elif op == "predict":
                send({"op": "predictions", "ids": self.predict(message)})
            elif op == "save":
                self.engine.save(message["path"])
                send({"op": "saved"})
            else:
                raise EngineError(f"unexpected message {op}")


def run(engine):
    """Speaks the protocol for `engine` until `quit`; the process's exit status."""
    hello = receive()
    if hello.get("op") != "hello" or PROTOCOL not in hello.get("versions", [hello.get("protocol")]):
        send({"op": "error", "message": f"{engine.name} speaks protocol {PROTOCOL}, got {hello}"})
        return 1
    send({"op": "hello", "protocol": PROTOCOL, "engine": engine.name, "version": engine.version})
    try:
        Session(engine).serve(until=("quit",))
    except EngineError as error:
        send({"op": "error", "message": str(error)})
        return 1
    except Exception as error:  # an engine's bug: the row says what, the cell's log says where
        traceback.print_exc()
        send({"op": "error", "message": f"{engine.name}: {type(error).__name__}: {error}"})
        return 1
    return 0
