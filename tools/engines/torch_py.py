#!/usr/bin/python3
"""torch-py: the engine's model as a Python PyTorch user writes it, over the protocol.

EmbeddingBag (sum, per-sample weights) for the sparse input, a hidden bias and ReLU, Linear,
summed softmax cross-entropy with target 1/k on each of a row's k labels; torch.optim.Adam
(embedding_grad=dense, the default) or SparseAdam on an EmbeddingBag(sparse=True) plus Adam
on the rest (embedding_grad=sparse). The same initial weights, batches, batch order and
learning-rate schedule as `torch` (baselines/torch_learner.cc), so that the rows differ only
by the language around LibTorch: the weights are the engine's seeded draws
(engine/model/parameters.cc), the order its seeded permutations (datasets/dataset.cc). As in
`torch`, everything but reading the rows happens in `train`, on the clock: reading the labels,
drawing the weights, building the model and its optimizer, and each epoch's permutation.
Like `torch`, freed memory stays in the heap (glibc mallopt; malloc=glibc leaves glibc's
defaults, under which an amazon670k-0.1 epoch took 6 times as long: tools/engines/README.md)
and single-row predictions run on one thread.

Options: hidden=128, embedding_grad=dense|sparse, device=cpu|cuda, malloc=keep|glibc.
Debian's python3-torch (CPU) here: hence /usr/bin/python3.
"""
import ctypes
import math
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import protocol  # noqa: E402
from protocol import EngineError  # noqa: E402

DEFAULTS = {"hidden": 128, "embedding_grad": "dense", "device": "cpu", "malloc": "keep"}
BETAS, EPS = (0.9, 0.999), 1e-8  # engine/model/parameters.h's AdamConfig defaults
M64 = (1 << 64) - 1


def mix64(x):
    """datasets/random.h's Mix64 (SplitMix64) on a Python int."""
    x = (x + 0x9E3779B97F4A7C15) & M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M64
    return x ^ (x >> 31)


def mix_seed(a, b):
    return mix64(a ^ mix64(b))


def rng_state(seed):
    state = []
    for _ in range(4):
        seed = mix64(seed)
        state.append(seed)
    return state


def rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & M64


def xoshiro_next(s):
    """datasets/random.h's Rng::Next (xoshiro256**) on a list of 4 ints, or of 4 uint64 arrays."""
    if isinstance(s[0], np.ndarray):
        result = _rotl_np(s[1] * np.uint64(5), 7) * np.uint64(9)
        t = s[1] << np.uint64(17)
    else:
        result = (rotl((s[1] * 5) & M64, 7) * 9) & M64
        t = (s[1] << 17) & M64
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl_np(s[3], 45) if isinstance(s[3], np.ndarray) else rotl(s[3], 45)
    return result


def _rotl_np(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


def seeded_permutation(n, seed):
    """datasets/dataset.cc's SeededPermutation: Fisher-Yates with Rng::Below."""
    order = list(range(n))
    s = rng_state(seed)
    for i in range(n, 1, -1):
        j = ((xoshiro_next(s) >> 32) * i) >> 32
        order[i - 1], order[j] = order[j], order[i - 1]
    return np.array(order, dtype=np.int64)


def initial_weights(seed, rows, dim, fan_in, fan_out):
    """engine/model/parameters.cc's Parameters::Initialize: chunks of 2^16 weights, each from its own
    stream, two weights a 64-bit draw; all chunks drawn at once, one numpy op a step."""
    chunk = 1 << 16
    n = rows * dim
    chunks = (n + chunk - 1) // chunk
    states = [rng_state(mix_seed(seed, c)) for c in range(chunks)]
    s = [np.array([st[i] for st in states], dtype=np.uint64) for i in range(4)]
    bits = np.empty((chunks, chunk // 2), dtype=np.uint64)
    for j in range(chunk // 2):
        bits[:, j] = xoshiro_next(s)
    scale = np.float32(math.sqrt(6.0 / (fan_in + fan_out)) * 2.0**-31)
    words = bits.view(np.uint32).reshape(-1)[:n]  # little-endian: low half first, as put(i, bits)
    weights = words.view(np.int32).astype(np.float32)
    del s, bits, words
    weights *= scale  # in place: one copy of the layer beside the model's, not two
    return torch.from_numpy(weights.reshape(rows, dim))


def keep_freed_memory():
    """As `torch` does (baselines/torch_learner.cc): no mmap for large blocks, no trimming."""
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return
    libc.mallopt(-4, 0)  # M_MMAP_MAX
    libc.mallopt(-1, 2**31 - 1)  # M_TRIM_THRESHOLD


class Csr:
    """Rows of ids and values (and labels) as flat arrays (protocol.Ragged), and batches gathered
    from them."""

    def __init__(self, rows):
        self.ptr, self.ids, self.values = rows.ptr, rows.flat, rows.values

    def set_labels(self, labels):
        """Each row's label ids (protocol.label_arrays)."""
        self.label_ptr, self.labels = labels.ptr, labels.flat

    @staticmethod
    def _spans(ptr, rows):
        starts, lengths = ptr[rows], ptr[rows + 1] - ptr[rows]
        firsts = np.cumsum(lengths) - lengths
        return np.repeat(starts - firsts, lengths) + np.arange(lengths.sum()), firsts, lengths

    def inputs(self, rows):
        at, offsets, _ = self._spans(self.ptr, rows)
        ids = self.ids[at]  # EmbeddingBag takes 32- or 64-bit ids, and offsets of the same type
        return torch.from_numpy(ids), torch.from_numpy(offsets.astype(ids.dtype)), torch.from_numpy(self.values[at])

    def targets(self, rows, outputs):
        """Flat indices into the batch's logits and their weights 1/k."""
        at, _, counts = self._spans(self.label_ptr, rows)
        batch_row = np.repeat(np.arange(len(rows)), counts)
        weight = np.repeat(1.0 / counts, counts).astype(np.float32)
        return torch.from_numpy(batch_row * outputs + self.labels[at]), torch.from_numpy(weight)


class Mlp(torch.nn.Module):
    def __init__(self, features, hidden, labels, sparse):
        super().__init__()
        self.input = torch.nn.utils.skip_init(torch.nn.EmbeddingBag, features, hidden, mode="sum", sparse=sparse)
        self.hidden_bias = torch.nn.Parameter(torch.zeros(hidden))
        self.output = torch.nn.utils.skip_init(torch.nn.Linear, hidden, labels)

    def forward(self, ids, offsets, values):
        return self.output(F.relu(self.input(ids, offsets, per_sample_weights=values) + self.hidden_bias))


class TorchPy:
    name = "torch-py"
    version = f"torch {torch.__version__}"

    def load(self, message):
        opts = protocol.options(message["options"], DEFAULTS)
        if opts["embedding_grad"] not in ("dense", "sparse"):
            raise EngineError(f"embedding_grad={opts['embedding_grad']}: dense or sparse")
        if opts["malloc"] not in ("keep", "glibc"):
            raise EngineError(f"malloc={opts['malloc']}: keep or glibc")
        if opts["device"] == "cuda" and not torch.cuda.is_available():
            raise EngineError(
                f"torch-py:device=cuda needs PyTorch with CUDA and a GPU; this PyTorch "
                f"({torch.__version__}, CUDA {torch.version.cuda or 'none'}) has none")
        self.device = torch.device(opts["device"])
        settings = message["settings"]
        self.threads = max(1, settings["threads"] or 1)
        self.seed = settings["seed"]
        self.batch = settings["batch"] or 256  # engine/api/train_defaults.h
        self.lr = settings["lr"] or 0.005
        self.epochs = settings["epochs"] or 1
        half_life = settings.get("lr_half_life")
        self.half_life = 500_000 if half_life is None else half_life
        self.sparse = opts["embedding_grad"] == "sparse"
        # Read before keep_freed_memory: under glibc's defaults the growing arrays are mapped
        # blocks that grow in place, not copies left behind in the heap.
        rows = protocol.row_arrays(message["train"])
        self.data, self.rows = Csr(rows), len(rows)
        print(f"torch-py: {self.rows} rows, {len(rows.flat)} ids and values as arrays: "
              f"{rows.nbytes() / 2**20:.0f} MB", file=sys.stderr)
        if opts["malloc"] == "keep":
            keep_freed_memory()
        torch.set_num_threads(self.threads)
        torch.manual_seed(self.seed)
        self.labels = message["labels"]
        self.features, self.hidden = message["features"], opts["hidden"]
        self.model = None
        self.samples = 0
        optimizer = ("SparseAdam on the EmbeddingBag (touched rows) + torch.optim.Adam on the rest" if self.sparse
                     else "adam, dense: every weight every step (torch.optim.Adam)")
        return {"batch": self.batch, "lr": self.lr, "epochs": self.epochs, "pauses": "any",
                "optimizer": f"{optimizer}; {protocol.schedule_text(self.half_life)}", "precision": "fp32"}

    def build(self, labels_file):
        """The labels, the model with its initial weights and its optimizers: at the start of `train`."""
        self.data.set_labels(protocol.label_arrays(labels_file))
        self.labelled = np.diff(self.data.label_ptr) > 0
        self.model = Mlp(self.features, self.hidden, self.labels, self.sparse)
        with torch.no_grad():
            self.model.input.weight.copy_(
                initial_weights(mix_seed(self.seed, 1), self.features, self.hidden, self.features, self.hidden))
            self.model.output.weight.copy_(
                initial_weights(mix_seed(self.seed, 2), self.labels, self.hidden, self.hidden, self.labels))
            self.model.output.bias.zero_()
        self.model.to(self.device)
        if self.sparse:
            rest = [self.model.hidden_bias, *self.model.output.parameters()]
            self.optimizers = [torch.optim.SparseAdam([self.model.input.weight], lr=self.lr, betas=BETAS, eps=EPS),
                               torch.optim.Adam(rest, lr=self.lr, betas=BETAS, eps=EPS)]
        else:
            self.optimizers = [torch.optim.Adam(self.model.parameters(), lr=self.lr, betas=BETAS, eps=EPS)]

    def step(self, rows):
        ids, offsets, values = (t.to(self.device) for t in self.data.inputs(rows))
        index, weight = (t.to(self.device) for t in self.data.targets(rows, self.labels))
        logits = self.model(ids, offsets, values)
        loss = -(F.log_softmax(logits, 1).view(-1).index_select(0, index) * weight).sum()
        for optimizer in self.optimizers:
            optimizer.zero_grad()
        loss.backward()
        rate = protocol.scheduled_lr(self.lr, self.half_life, self.samples)
        for optimizer in self.optimizers:
            for group in optimizer.param_groups:
                group["lr"] = rate
            optimizer.step()
        self.samples += len(rows)
        return loss.detach()

    def train(self, message, session):
        pauses = message["pause_after"]
        self.use_threads(self.threads)
        if self.model is None:
            self.build(message["labels"])
        self.model.train()
        for epoch in range(self.epochs):
            # RunEpoch's order (baselines/epoch_loop.cc): epoch e's permutation, seeded by epoch e + 1.
            order = seeded_permutation(self.rows, mix_seed(self.seed, epoch + 1))
            plan = iter(pauses + [self.rows])
            at = next(plan)
            loss, since = self.zero(), 0
            for begin in range(0, self.rows, self.batch):
                rows = order[begin:begin + self.batch]
                rows = rows[self.labelled[rows]]
                if len(rows):
                    loss += self.step(rows).double()
                    since += len(rows)
                while at is not None and min(begin + self.batch, self.rows) >= at:
                    mean = loss.item() / since if since else None  # .item() waits for the device
                    session.pause(epoch, at, mean)
                    self.use_threads(self.threads)
                    self.model.train()
                    loss, since = self.zero(), 0
                    at = next(plan, None)

    def model_bytes(self):
        if self.model is None:
            return 0
        return sum(p.numel() for p in self.model.parameters()) * 3 * 4  # weights and Adam's moments

    def zero(self):
        return torch.zeros((), dtype=torch.float64, device=self.device)

    def use_threads(self, threads):
        if torch.get_num_threads() != threads:
            torch.set_num_threads(threads)

    @torch.no_grad()
    def predict(self, rows, k):
        self.use_threads(1 if len(rows) == 1 else self.threads)  # one request, one thread, as `torch`
        self.model.eval()
        data = Csr(protocol.ragged_rows(rows, self.features))
        k = min(k, self.labels)
        block = min(max((16 << 20) // self.labels, 1), 1024)
        ids = []
        for first in range(0, len(rows), block):
            batch = np.arange(first, min(len(rows), first + block))
            scores = self.model(*(t.to(self.device) for t in data.inputs(batch)))
            ids.extend(torch.topk(scores, k, dim=1).indices.cpu().tolist())
        return ids

    def save(self, path):
        torch.save(self.model.state_dict(), path)


if __name__ == "__main__":
    sys.exit(protocol.run(TorchPy()))
