#!/usr/bin/env python3
"""Where a JVM's CPU goes, from the execution samples of a JFR recording.

    jfr print --events jdk.ExecutionSample --stack-depth 96 rec.jfr > samples.txt
    scripts/jfr-cpu.py samples.txt [--from HH:MM:SS --to HH:MM:SS] [--top N]

Prints the share of samples by top frame, by top frame's package, by thread (digits folded), and
by category: the first rule (in order) that matches a frame of the stack names the sample, so a
Kafka producer send called from the fold counts as the fold's only if the fold's rule comes first.
The recording samples Java code only: GC, JIT and other native threads are not in it.
"""
import argparse
import collections
import re
import sys

# (category, regex on a frame); the first category whose regex matches any frame wins, rules are
# tried from the top frame down within each rule's turn, so order the rules from the most specific
CATEGORIES = [
    ("JSON/Smile encode/decode", r"^com\.fasterxml\.jackson\.|^io\.taskmesh\.[\w.]*(Json|Codec|Smile)"),
    ("Kafka transactions (client)", r"TransactionManager|sendOffsetsToTransaction|commitTransaction|beginTransaction"),
    ("Kafka producer", r"^org\.apache\.kafka\.clients\.producer\."),
    ("Kafka consumer", r"^org\.apache\.kafka\.clients\.consumer\."),
    ("RocksDB / state store", r"^org\.rocksdb\.|^org\.apache\.kafka\.streams\.state\."),
    ("Kafka Streams (other)", r"^org\.apache\.kafka\.streams\."),
    ("Kafka network client", r"^org\.apache\.kafka\.clients\.|^org\.apache\.kafka\.common\.network\."),
    ("Kafka broker request handling", r"^kafka\.|^org\.apache\.kafka\.(server|storage|raft|coordinator|metadata|image)\."),
    ("Kafka common (records, serde)", r"^org\.apache\.kafka\.common\."),
    ("Postgres/JDBC", r"^org\.postgresql\.|^com\.zaxxer\."),
    ("HTTP server/client", r"^io\.undertow\.|^org\.eclipse\.jetty\.|^io\.netty\.|^java\.net\.http\.|^jdk\.internal\.net\.http\.|^sun\.net\.|^com\.sun\.net\.httpserver\."),
    ("taskmesh code", r"^io\.taskmesh\."),
    ("JDK", r"^(java|javax|jdk|sun)\."),
]
RULES = [(name, re.compile(rx)) for name, rx in CATEGORIES]

# what a sample of the dev JVM works for, by where it is called from (--parts): the first part
# with a frame (or, for "thread:", the thread name) that matches names the sample
PARTS = [
    ("x-sink final report over HTTP, client side", r"GatewayReporter\.finalReport"),
    ("gateway /mesh routes (final report), server side", r"MeshTaskRoutes"),
    ("progress events, sidecar side", r"TaskEventLog\.sendNow|TaskEventLog\.flush"),
    ("follower: store reads after updates (MCP wait)", r"TaskFollower\.read"),
    ("task update feed (consumer, decode, fan-out)", r"KafkaUpdateFeed|thread:task-update-feed"),
    ("Streams fold: process (fold, store and changelog writes)", r"TaskTopology\$FoldProcessor"),
    ("Streams: poll, commit, produce (exactly-once)", r"thread:StreamThread"),
    ("actor runtime call (Unix socket HTTP, JSON)", r"RuntimeClient|UnixHttpClient"),
    ("actor loop: envelope decode/route/encode", r"EnvelopeProcessor|SinkActor|SumpActor"),
    ("actor loop: transactions, poll, offsets", r"ActorLoop"),
    ("task start: created event + envelope dispatch", r"TaskLauncher|ToolCalls\.start"),
    ("MCP tools/call: request, answer, SSE", r"io\.taskmesh\.gateway\.mcp|McpServlet|SseWriter|thread:mcp-sse"),
    ("HTTP server: the rest (Jetty, filters)", r"org\.eclipse\.jetty|thread:JettyServerThreadPool"),
    ("Kafka producer I/O threads", r"thread:kafka-producer-network-thread"),
    ("HTTP client threads", r"thread:HttpClient"),
    ("metrics", r"micrometer|thread:micrometer"),
]
PART_RULES = [(name, re.compile(rx)) for name, rx in PARTS]

def samples(path, frm, to):
    ev = None
    for line in open(path, encoding="utf-8", errors="replace"):
        s = line.strip()
        if s.startswith("jdk.ExecutionSample"):
            ev = {"frames": [], "thread": "?", "time": ""}
        elif ev is None:
            continue
        elif s.startswith("startTime"):
            ev["time"] = s.split("=", 1)[1].strip()[:8]
        elif s.startswith("sampledThread"):
            m = re.search(r'"(.*)"', s)
            ev["thread"] = m.group(1) if m else "?"
        elif s == "]" or s == "}":
            if s == "}":
                if (not frm or ev["time"] >= frm) and (not to or ev["time"] < to):
                    yield ev
                ev = None
        elif s.startswith("stackTrace") or s.startswith("state") or s == "...":
            pass
        else:
            ev["frames"].append(re.sub(r"\s+line:.*$", "", s))

def part(frames, thread):
    for name, rx in PART_RULES:
        for alt in rx.pattern.split("|"):
            if alt.startswith("thread:"):
                if re.search(alt[len("thread:"):], thread):
                    return name
            elif any(re.search(alt, f) for f in frames):
                return name
    return "other"

def category(frames):
    for name, rx in RULES:
        for f in frames:
            if rx.search(f):
                return name
    return "other"

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--from", dest="frm")
    ap.add_argument("--to")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--inclusive", action="append", default=[],
                    help="also print the share of samples with a frame matching this regex")
    a = ap.parse_args()
    top, pkg, thread, cat, methods, parts = (collections.Counter() for _ in range(6))
    per_second = collections.Counter()
    incl = collections.Counter()
    n = 0
    for ev in samples(a.file, a.frm, a.to):
        fr = ev["frames"]
        if not fr:
            continue
        n += 1
        per_second[ev["time"]] += 1
        f0 = re.sub(r"\(.*$", "", fr[0])
        top[f0] += 1
        pkg[".".join(f0.split(".")[:4])] += 1
        thread[re.sub(r"\d+", "N", ev["thread"])] += 1
        cat[category(fr)] += 1
        parts[part(fr, ev["thread"])] += 1
        seen = set()
        for f in fr:
            m = re.sub(r"\(.*$", "", f)
            if m.startswith("io.taskmesh.") and m not in seen:
                seen.add(m)
                methods[m] += 1
        for rx in a.inclusive:
            if any(re.search(rx, f) for f in fr):
                incl[rx] += 1
    if n == 0:
        sys.exit("no samples")
    def show(title, c, k=a.top):
        print(f"\n## {title} ({n} samples)")
        for key, v in c.most_common(k):
            print(f"{100.0 * v / n:6.1f}%  {v:6d}  {key}")
    print(f"samples from {min(per_second)} to {max(per_second)}")
    show("by category (first matching rule)", cat)
    show("by part of the work (first matching part)", parts)
    show("by thread", thread)
    show("by top frame", top)
    show("by top frame's package", pkg)
    show("taskmesh methods on the stack (inclusive)", methods, a.top * 2)
    if incl:
        show("inclusive", incl)

main()
