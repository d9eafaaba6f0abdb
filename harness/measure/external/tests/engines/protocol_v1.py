"""SparseBench's external-engine protocol, version 1 (README.md), for engines written in Python.

A frozen copy of tools/engines/protocol.py as it shipped before version 2, kept unchanged so
that the tests run an engine wrapped the way users wrapped theirs (engines/sgd_v1.py).

An engine is an object with `name`, `version`, `load(message) -> dict`,
`train(message, session)`, `model_bytes()`, `predict(rows, k) -> [[ids...]...]` and
`save(path)`; `run(engine)` speaks the protocol for it. `train` calls
`session.pause(epoch, rows, loss)` at every pause the harness planned; when the harness answers
a pause with `stop` (its training budget is spent), `pause` raises StopTraining, which ends
`train` there with the model as it is. Any other exception becomes an `{"op":"error"}` with
its message.
"""
import json
import sys
import traceback

PROTOCOL = 1
# Keys of an exec: spec that are the harness's own (deadlines, input); every engine accepts them.
HARNESS_KEYS = ("hello_seconds", "reply_seconds", "input")


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


def read_rows(path):
    """The header and the rows of a sparsebench-rows file."""
    with open(path, encoding="utf-8") as f:
        header = json.loads(f.readline())
        if header.get("format") != "sparsebench-rows" or header.get("version") != 1:
            raise EngineError(f"{path}: not a sparsebench-rows file of version 1")
        rows = [json.loads(line) for line in f]
    if len(rows) != header["rows"]:
        raise EngineError(f"{path}: the header says {header['rows']} rows, the file has {len(rows)}")
    return header, rows


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
                rows = message["rows"] if "rows" in message else read_rows(message["file"])[1]
                send({"op": "predictions", "ids": self.engine.predict(rows, message["k"])})
            elif op == "save":
                self.engine.save(message["path"])
                send({"op": "saved"})
            else:
                raise EngineError(f"unexpected message {op}")


def run(engine):
    """Speaks the protocol for `engine` until `quit`; the process's exit status."""
    hello = receive()
    if hello.get("op") != "hello" or hello.get("protocol") != PROTOCOL:
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
