#!/usr/bin/env python3
"""A deliberately misbehaving external engine for the referee's tests.

BROKEN_MODE (environment) chooses the misbehaviour; "none" speaks protocol 2
correctly ("v1": protocol 1), predicting label 0 first. Options from the spec: step,
predict, load (seconds slept by each training step, each predict reply and the load),
hog_mb (memory the "memory" and "escape_memory" modes fill), burn (CPU seconds the
"escape_burn" mode's grandchild burns), burn_load, burn_pause, burn_after (CPU seconds
burned in load, in each predict reply in a pause, in the predict replies after done), spy
(a file where it writes what it was given: whether the rows at load had labels, and the
labels file's rows).
"""
import json
import os
import signal
import subprocess
import sys
import time

MODE = os.environ.get("BROKEN_MODE", "none")


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def receive():
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    return json.loads(line)


def burn(seconds):
    """Spends `seconds` of CPU time on this thread."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def hold(mb):
    """`mb` MB of memory, every page touched."""
    hog = bytearray(mb << 20)
    for i in range(0, len(hog), 4096):
        hog[i] = 1
    return hog


def escape(hold_mb=0, burn_seconds=0, then_exit=False):
    """A grandchild in a session of its own (double fork, setsid) that ignores SIGTERM, holds
    `hold_mb` MB, burns `burn_seconds` of CPU, then exits or sleeps."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            hog = hold(hold_mb)
            burn(burn_seconds)
            if not then_exit:
                time.sleep(600)
            os._exit(0)
        os._exit(0)
    os.wait()


def predictions(message, labels):
    rows = len(message["rows"]) if "rows" in message else json.loads(open(message["file"]).readline())["rows"]
    top = list(range(min(message["k"], labels)))
    if MODE == "out_of_range":
        top[-1] = labels
    if MODE == "duplicate":
        top[-1] = top[0]
    if MODE == "wrong_rows":
        rows -= 1
    if MODE == "wrong_k":
        top = top[:-1]
    return {"op": "predictions", "ids": [top] * rows}


def serve(until, labels, options, phase):
    while True:
        message = receive()
        if message["op"] == until:
            return message
        if message["op"] == "predict":
            burn(float(options.get("burn_" + phase, 0)))
            if MODE == "silent":
                time.sleep(3600)
            if MODE == "flood":
                while True:
                    sys.stdout.write("x" * 65536)
            time.sleep(float(options.get("predict", 0)))
            send(predictions(message, labels))
        elif message["op"] == "save":
            send({"op": "saved"})


def main():
    hello = receive()
    if MODE == "not_json":
        print("hello there", flush=True)
    protocol = 3 if MODE == "version" else 1 if MODE == "v1" or 2 not in hello.get("versions", []) else 2
    send({"op": "hello", "protocol": protocol, "engine": "broken", "version": MODE})
    load = receive()
    if MODE == "early_exit":
        sys.exit(3)
    if MODE == "leftover":
        subprocess.Popen(["sh", "-c", "trap '' TERM; sleep 600; : broken-leftover"], stdin=subprocess.DEVNULL)
    options = load["options"]
    if MODE == "escape":
        escape()
    if MODE == "fork_shared":  # a child sharing hog_mb with its parent after fork, for a while
        hog = hold(int(options.get("hog_mb", 200)))
        if os.fork() == 0:
            time.sleep(1.5)
            os._exit(0)
        time.sleep(1.5)
        os.wait()
    labels = load["labels"]
    with open(load["train"]) as f:
        rows = int(json.loads(f.readline())["rows"])
        seen = {"load_labels": any("labels" in json.loads(line) for line in f)}
    time.sleep(float(options.get("load", 0)))
    burn(float(options.get("burn_load", 0)))
    epochs = load["settings"]["epochs"] or 1
    batch = -10 if MODE == "bad_type" else load["settings"]["batch"] or 10
    send({"op": "loaded", "batch": batch, "lr": 0, "epochs": epochs, "optimizer": "none"})
    train = receive()
    if "labels" in train:
        with open(train["labels"]) as f:
            seen["train_labels"] = [json.loads(line) for line in f][1:]
    if "spy" in options:
        with open(options["spy"], "w") as f:
            json.dump(seen, f)
    if MODE == "hang":
        time.sleep(3600)
    if MODE == "memory":
        hog = hold(int(options.get("hog_mb", 1024)))
        time.sleep(3600)
    if MODE == "escape_memory":
        escape(hold_mb=int(options.get("hog_mb", 1024)))
        time.sleep(3600)
    if MODE == "escape_burn":
        escape(burn_seconds=float(options.get("burn", 1)), then_exit=True)
        time.sleep(float(options.get("burn", 1)) * 2 + 1)
    for epoch in range(epochs):
        for at in train["pause_after"] + [rows]:
            time.sleep(float(options.get("step", 0)))
            if MODE == "early_answer":
                send({"op": "predictions", "ids": []})
            send({"op": "pause", "epoch": epoch, "rows": at + (1 if MODE == "wrong_pause" else 0), "loss": 0.5})
            serve("resume", labels, options, "pause")
    send({"op": "done", "model_bytes": 1})
    serve("quit", labels, options, "after")


if __name__ == "__main__":
    main()
