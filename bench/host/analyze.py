#!/usr/bin/env python3
"""Turn run-scenario.sh output directories into figures, a markdown table,
gnuplot data, and (with --check) the host-e2e suite's assertions.

  analyze.py table  RESULTS_DIR WORKLOAD            markdown table on stdout
  analyze.py plot   RESULTS_DIR WORKLOAD OUT.png    one PNG, host memory over time
  analyze.py check  RESULTS_DIR                     host-e2e assertions

RESULTS_DIR holds one directory per run, named SCENARIO-WORKLOAD (a-w1, ...).
"Host memory held by the guest" is the resident part of the guest-RAM mapping
of the QEMU process (ram_rss); the host page cache for the image and the
whole QEMU VmRSS are reported beside it.
"""
import os
import subprocess
import sys

SCENARIOS = {
    "a": "no control",
    "b": "drop_caches every 10 s",
    "c": "gradual memory.reclaim (WSL2 style)",
    "d": "upcd, defaults",
    "e": "kernel series, unmapped_page_control",
    "f": "DAX on virtio-pmem (shared cache)",
}


def load_run(path):
    """Host samples, guest markers and results of one run directory."""
    host = []
    with open(os.path.join(path, "host.tsv")) as f:
        next(f)
        for line in f:
            t, ram, qemu, img, avail = (int(x) for x in line.split("\t"))
            if not qemu:
                continue  # QEMU exited while hostsample read it: a torn sample
            host.append({"t": t / 1000.0, "ram": ram / 1024.0, "qemu": qemu / 1024.0,
                         "img": img / 1024.0, "avail": avail / 1024.0})
    marks, results, guest, header = {}, {}, [], None
    with open(os.path.join(path, "guest.tsv")) as f:
        for line in f:
            t, _, text = line.rstrip("\n").partition("\t")
            if text.startswith("t_ms\t"):
                header = text.split("\t")
            elif header and text[:1].isdigit():
                cols = text.split("\t")
                if len(cols) == len(header):
                    row = dict(zip(header, (int(c) for c in cols)))
                    row["host_t"] = int(t) / 1000.0
                    guest.append(row)
            elif text.startswith("M "):
                marks.setdefault(text[2:].strip(), int(t) / 1000.0)
            elif text.startswith("R "):
                key, _, value = text[2:].partition(" ")
                results[key] = value.strip()
    return host, marks, results, guest


def sample_at(host, t):
    """The last host sample taken at or before t."""
    before = [s for s in host if s["t"] <= t]
    return before[-1] if before else host[0]


def figures(path):
    host, marks, results, guest = load_run(path)
    io_end = marks.get("scan_end", marks.get("stream_end"))
    io_start = marks.get("scan_start", marks.get("stream_start"))
    end_t = marks.get("idle_end", host[-1]["t"])
    end = sample_at(host, end_t)
    peak_ram = max(s["ram"] for s in host)
    at_io_end = sample_at(host, io_end) if io_end else end
    # "Memory back": from the end of the I/O phase until RAM RSS has come
    # down to within 10% of its total fall; None if it did not fall at all.
    back_s = None
    fall = at_io_end["ram"] - end["ram"]
    if io_end and fall > 16:
        for s in host:
            if s["t"] >= io_end and s["ram"] <= end["ram"] + 0.1 * fall:
                back_s = s["t"] - io_end
                break
    # Guest memory in use (MemTotal - MemFree) against what the host still
    # holds for it: the difference is memory the guest has freed but free
    # page reporting has not (yet) handed back.
    unreported = None
    g_end = [g for g in guest if g["host_t"] <= end_t]
    if g_end:
        ram_file = os.path.join(path, "ram_mib")
        ram_mib = int(open(ram_file).read()) if os.path.exists(ram_file) else \
            g_end[-1]["MemTotal_kb"] / 1024.0
        used = ram_mib - g_end[-1]["MemFree_kb"] / 1024.0
        unreported = max(0.0, end["ram"] - used)
    return {
        "unreported": unreported,
        "guest_file_end": g_end[-1]["file_lru_kb"] / 1024.0 if g_end else None,
        "end_ram": end["ram"], "peak_ram": peak_ram, "end_qemu": end["qemu"],
        "peak_qemu": max(s["qemu"] for s in host), "end_img": end["img"],
        "ram_at_io_end": at_io_end["ram"], "back_s": back_s,
        "io_s": (io_end - io_start) if io_end and io_start else None,
        "results": results, "marks": marks, "host": host,
    }


def runs(results_dir, workload):
    found = {}
    for sc in SCENARIOS:
        path = os.path.join(results_dir, f"{sc}-{workload}")
        if os.path.exists(os.path.join(path, "guest.tsv")):
            found[sc] = figures(path)
    return found


def fmt(value, spec="{:.0f}", none="–"):
    return none if value is None else spec.format(value)


def cmd_table(results_dir, workload):
    found = runs(results_dir, workload)
    base = found.get("a")
    w2 = workload == "w2"
    head = ["scenario", "guest RAM held, end (MiB)", "peak (MiB)", "saved vs (a)",
            "QEMU VmRSS end (MiB)", "host cache of image, end (MiB)",
            "memory back after (s)", "I/O phase (s)", "guest file LRU, end (MiB)",
            "freed, not reported (MiB)", "mapped file resident"]
    if w2:
        head += ["hot pass (ms)", "hot hit ratio", "hot slowdown vs (a)"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for sc, fig in found.items():
        r = fig["results"]
        saved = None
        if base and base["end_ram"] > 0:
            saved = 100.0 * (1 - fig["end_ram"] / base["end_ram"])
        mapped = f'{r.get("maphold_resident_pages", "?")}/{r.get("maphold_total_pages", "?")}'
        row = [f"({sc}) {SCENARIOS[sc]}", fmt(fig["end_ram"]), fmt(fig["peak_ram"]),
               fmt(saved, "{:.0f}%"), fmt(fig["end_qemu"]), fmt(fig["end_img"]),
               fmt(fig["back_s"], "{:.1f}"), fmt(fig["io_s"], "{:.1f}"),
               fmt(fig["guest_file_end"]), fmt(fig["unreported"]), mapped]
        if w2:
            hot_ms = float(r["hot_pass_ms"]) if "hot_pass_ms" in r else None
            base_ms = None
            if base and "hot_pass_ms" in base["results"]:
                base_ms = float(base["results"]["hot_pass_ms"])
            slow = hot_ms / base_ms if hot_ms and base_ms else None
            hit = r.get("hot_hit_ratio", "")
            if sc == "f":
                hit = "n/a (DAX: no guest cache)"
            row += [fmt(hot_ms, "{:.1f}"), hit or "–", fmt(slow, "{:.2f}x")]
        print("| " + " | ".join(row) + " |")


def cmd_plot(results_dir, workload, png):
    found = runs(results_dir, workload)
    data = os.path.join(results_dir, f"plot-{workload}.dat")
    with open(data, "w") as f:
        for sc, fig in found.items():
            f.write(f'# ({sc})\n')
            for s in fig["host"]:
                f.write(f'{s["t"]:.1f} {s["ram"]:.1f} {s["img"]:.1f}\n')
            f.write("\n\n")
    plots = []
    for i, sc in enumerate(found):
        plots.append(f"'{data}' index {i} using 1:2 with lines lw 2 title '({sc}) {SCENARIOS[sc]}'")
    script = "\n".join([
        "set terminal pngcairo size 1000,560 noenhanced" if has_cairo() else
        "set terminal png size 1000,560 noenhanced",
        f"set output '{png}'",
        f"set title 'Host memory held by the guest (RSS of guest RAM in QEMU), workload {workload.upper()}'",
        "set xlabel 'seconds since QEMU start'",
        "set ylabel 'MiB'",
        "set key outside bottom center horizontal maxrows 3",
        "set grid",
        "plot " + ", \\\n  ".join(plots),
    ])
    subprocess.run(["gnuplot"], input=script, text=True, check=True)


def has_cairo():
    out = subprocess.run(["gnuplot", "-e", "set terminal"], capture_output=True, text=True)
    return "pngcairo" in (out.stdout + out.stderr)


def cmd_check(results_dir):
    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        print(("PASS " if ok else "FAIL ") + what)
        if ok:
            passed += 1
        else:
            failed += 1

    found = runs(results_dir, "w1")
    for sc in "ade":
        check(sc in found, f"({sc}) W1 ran to its end marker")
    if "a" in found:
        a = found["a"]
        mem_mib = int(a["results"].get("mem_total_kb", "0")) / 1024.0
        # Without this the 50% checks below could pass on a guest that cached nothing.
        check(a["end_ram"] >= 0.6 * mem_mib,
              f"(a) holds most of the guest's RAM at the end: {a['end_ram']:.0f} MiB of {mem_mib:.0f}")
        for sc in "de":
            if sc in found:
                fig = found[sc]
                check(fig["end_ram"] <= 0.5 * a["end_ram"],
                      f"({sc}) holds <= 50% of (a)'s host memory at the end of W1: "
                      f"{fig['end_ram']:.0f} MiB vs {a['end_ram']:.0f} MiB")
    for sc, fig in found.items():
        r = fig["results"]
        total = int(r.get("maphold_total_pages", "0"))
        check(total > 0 and int(r.get("maphold_resident_pages", "-1")) == total and
              int(r.get("maphold_min_resident", "-1")) == total,
              f"({sc}) mapped file stayed resident: {r.get('maphold_resident_pages')}"
              f"/{total} at the end, min {r.get('maphold_min_resident')}")
    if "e" in found:
        r = found["e"]["results"]
        check(r.get("unmapped_page_control") == "1",
              f"(e) guest booted with the control on: vm.unmapped_page_control={r.get('unmapped_page_control')}")
        check(int(r.get("pgsteal_unmapped", "0")) > 0,
              f"(e) the series reclaimed: pgsteal_unmapped={r.get('pgsteal_unmapped', 'absent')}")
    if "a" in found:
        r = found["a"]["results"]
        check(r.get("unmapped_page_control") in ("0", "absent"),
              f"(a) control off: vm.unmapped_page_control={r.get('unmapped_page_control')}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def main(argv):
    if len(argv) >= 3 and argv[0] == "table":
        cmd_table(argv[1], argv[2])
        return 0
    if len(argv) >= 4 and argv[0] == "plot":
        cmd_plot(argv[1], argv[2], argv[3])
        return 0
    if len(argv) >= 2 and argv[0] == "check":
        return cmd_check(argv[1])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
