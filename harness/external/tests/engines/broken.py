#!/usr/bin/env python3
"""A deliberately misbehaving external engine for the referee's tests.

BROKEN_MODE (environment) chooses the misbehaviour; "none" speaks protocol 1
correctly, predicting label 0 first. Options from the spec: step, predict, load
(seconds slept by each training step, each predict reply and the load), hog_mb
(memory the "memory" mode fills).
"""
import json
import os
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


def serve(until, labels, options):
    while True:
        message = receive()
        if message["op"] == until:
            return message
        if message["op"] == "predict":
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
    send({"op": "hello", "protocol": 2 if MODE == "version" else 1, "engine": "broken", "version": MODE})
    load = receive()
    if MODE == "early_exit":
        sys.exit(3)
    if MODE == "leftover":
        subprocess.Popen(["sh", "-c", "trap '' TERM; sleep 600; : broken-leftover"], stdin=subprocess.DEVNULL)
    options = load["options"]
    labels = load["labels"]
    rows = int(json.loads(open(load["train"]).readline())["rows"])
    time.sleep(float(options.get("load", 0)))
    epochs = load["settings"]["epochs"] or 1
    batch = -10 if MODE == "bad_type" else load["settings"]["batch"] or 10
    send({"op": "loaded", "batch": batch, "lr": 0, "epochs": epochs, "optimizer": "none"})
    train = receive()
    if MODE == "hang":
        time.sleep(3600)
    if MODE == "memory":
        hog = bytearray(int(options.get("hog_mb", 1024)) << 20)
        for i in range(0, len(hog), 4096):
            hog[i] = 1
        time.sleep(3600)
    for epoch in range(epochs):
        for at in train["pause_after"] + [rows]:
            time.sleep(float(options.get("step", 0)))
            if MODE == "early_answer":
                send({"op": "predictions", "ids": []})
            send({"op": "pause", "epoch": epoch, "rows": at + (1 if MODE == "wrong_pause" else 0), "loss": 0.5})
            serve("resume", labels, options)
    send({"op": "done", "model_bytes": 1})
    serve("quit", labels, options)


if __name__ == "__main__":
    main()
