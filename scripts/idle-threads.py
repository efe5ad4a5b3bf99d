#!/usr/bin/env python3
"""CPU of every thread of a process tree over a window, busiest first (issue 36's idle profile).

    scripts/idle-threads.py <pid of ./taskmesh dev> [seconds, default 30]

Reads utime + stime of /proc/<pid>/task/*/stat for the process and all its descendants, plus the
dev stack's Postgres (it runs in a session of its own: found through the postmaster.pid of dev's
--data directory, so that another stack's Postgres on the same machine is not counted), before and
after the window. Prints cores per process kind, per thread family (a trailing number or id
dropped, every actor-<name> loop one family) and the 25 busiest threads. Take it only on a quiet
machine (uptime below 2).
"""
import os
import re
import sys
import time

TICK = os.sysconf("SC_CLK_TCK")


def threads(pid):
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            stat = open(f"/proc/{pid}/task/{tid}/stat").read()
        except OSError:
            continue
        comm = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        out[tid] = (comm, int(fields[11]) + int(fields[12]))
    return out


def data_dir(root):
    """dev's --data directory (default .taskmesh in its working directory)."""
    args = open(f"/proc/{root}/cmdline").read().split("\0")
    cwd = os.readlink(f"/proc/{root}/cwd")
    for i, arg in enumerate(args):
        if arg == "--data" and i + 1 < len(args):
            return os.path.join(cwd, args[i + 1])
        if arg.startswith("--data="):
            return os.path.join(cwd, arg[len("--data="):])
    return os.path.join(cwd, ".taskmesh")


def postmaster(root):
    try:
        with open(os.path.join(data_dir(root), "postgres", "data", "postmaster.pid")) as f:
            return int(f.readline().strip())
    except (OSError, ValueError):
        return None


def tree(root):
    children = {}
    for p in filter(str.isdigit, os.listdir("/proc")):
        try:
            ppid = int(open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()[1])
        except OSError:
            continue
        children.setdefault(ppid, []).append(int(p))
    pg = postmaster(root)
    if pg is not None:
        children.setdefault(root, []).append(pg)
    stack, found = [root], []
    while stack:
        p = stack.pop()
        if p not in found:
            found.append(p)
            stack.extend(children.get(p, []))
    return found


def kind(cmd):
    for needle, name in (("kafka.Kafka", "broker"), ("cli.Main connector", "connector"),
                         ("cli.Main", "dev JVM"),
                         ("postgres", "postgres"), ("taskmesh_runtime", "runtime")):
        if needle in cmd:
            return name
    return cmd.split(" ")[0].rsplit("/", 1)[-1]


def family(comm):
    if comm.startswith("actor-"):
        return "actor-*"
    return re.sub(r"(#\d+|-[0-9a-f]{3}|-?\d+)$", "", comm)


def main():
    root, window = int(sys.argv[1]), float(sys.argv[2]) if len(sys.argv) > 2 else 30.0
    pids = tree(root)
    before = {p: threads(p) for p in pids}
    start = time.time()
    time.sleep(window)
    window = time.time() - start
    per_kind, rows = {}, []
    for p in pids:
        try:
            name = kind(open(f"/proc/{p}/cmdline").read().replace("\0", " "))
            after = threads(p)
        except OSError:
            continue
        for tid, (comm, ticks) in after.items():
            spent = ticks - before.get(p, {}).get(tid, (comm, ticks))[1]
            per_kind[name] = per_kind.get(name, 0) + spent
            if spent > 0:
                rows.append((spent, name, comm))
    print(f"window {window:.1f} s; load {open('/proc/loadavg').read().strip()}")
    for name, ticks in sorted(per_kind.items(), key=lambda kv: -kv[1]):
        print(f"{name:10s} {ticks / TICK / window:.3f} cores")
    families = {}
    for spent, name, comm in rows:
        key = (name, family(comm))
        families[key] = families.get(key, (0, 0))
        families[key] = (families[key][0] + spent, families[key][1] + 1)
    print("thread families (threads that ran):")
    for (name, fam), (spent, n) in sorted(families.items(), key=lambda kv: -kv[1][0])[:15]:
        print(f"  {spent / TICK / window:.4f}  {name:10s} {fam} ({n})")
    print("busiest threads:")
    for spent, name, comm in sorted(rows, reverse=True)[:25]:
        print(f"  {spent / TICK / window:.4f}  {name:10s} {comm}")


if __name__ == "__main__":
    main()
