#!/usr/bin/env python3
"""Turn run-scenario.sh output directories into figures, markdown tables,
plots and (check) the host-e2e suite's assertions.

  analyze.py table    RESULTS WORKLOAD           markdown table on stdout
  analyze.py headline RESULTS                    the headline rows, all workloads
  analyze.py plot     RESULTS WORKLOAD OUT.png   host memory over time (repeat 1)
  analyze.py check    RESULTS                    host-e2e assertions

RESULTS holds r1/, r2/, ... (one per repeat), each with one directory per
run named SCENARIO-WORKLOAD (a-w1, ...).  "Guest RAM held" is the resident
part of the guest-RAM mapping of the QEMU process(es); "host total" adds
the host page cache of the image (one copy, however many guests read it).
Memory figures are medians over the repeats; timing figures are medians
with their spread (min-max).
"""
import os
import re
import statistics
import subprocess
import sys

SCENARIOS = {
    "a": "no control",
    "b": "drop_caches every 10 s",
    "c": "WSL2 gradual (memory.reclaim swappiness=0, RAM/32 steps, compaction)",
    "d": "upcd, defaults",
    "e": "kernel series, unmapped_page_control",
    "f": "DAX on virtio-pmem (shared cache)",
    "g": "host cache=none (O_DIRECT)",
    "h": "PSI/refault agent (memory.reclaim swappiness=0)",
    "i": "DAMOS pageout, anon filtered out",
}
USER_HZ = 100.0


def read_results(path):
    marks, results, rows, header = {}, {}, [], None
    with open(path) as f:
        for line in f:
            t, _, text = line.rstrip("\n").partition("\t")
            if text.startswith("t_ms\t"):
                header = text.split("\t")
            elif header and text[:1].isdigit():
                cols = text.split("\t")
                if len(cols) == len(header):
                    try:
                        row = dict(zip(header, (int(c) for c in cols)))
                    except ValueError:
                        continue
                    row["host_t"] = int(t) / 1000.0
                    rows.append(row)
            elif text.startswith("M "):
                marks.setdefault(text[2:].strip(), int(t) / 1000.0)
            elif text.startswith("R "):
                key, _, value = text[2:].partition(" ")
                results[key] = value.strip()
    return {"marks": marks, "results": results, "rows": rows}


def load_run(path):
    host = []
    with open(os.path.join(path, "host.tsv")) as f:
        header = next(f).rstrip("\n").split("\t")
        for line in f:
            vals = line.rstrip("\n").split("\t")
            if len(vals) != len(header):
                continue
            s = dict(zip(header, (int(x) for x in vals)))
            if not s["qemu_rss_kb"]:
                continue  # QEMU exited while hostsample read it: a torn sample
            host.append({"t": s["t_ms"] / 1000.0, "ram": s["ram_rss_kb"] / 1024.0,
                         "qemu": s["qemu_rss_kb"] / 1024.0, "img": s["img_cache_kb"] / 1024.0,
                         "per": [s[k] / 1024.0 for k in header if k.startswith("ram") and
                                 k.endswith("_kb") and k[3:-3].isdigit()]})
    if os.path.exists(os.path.join(path, "guest.tsv")):
        guests = [read_results(os.path.join(path, "guest.tsv"))]
    else:
        guests = []
        for i in range(1, 9):
            p = os.path.join(path, f"guest{i}.tsv")
            if os.path.exists(p):
                guests.append(read_results(p))
    return host, guests


def sample_at(host, t):
    before = [s for s in host if s["t"] <= t]
    return before[-1] if before else host[0]


def num(results, key, default=None):
    try:
        return float(results[key])
    except (KeyError, ValueError):
        return default


def delta(results, key, a="start", b="end"):
    x, y = num(results, f"{a}_{key}"), num(results, f"{b}_{key}")
    return None if x is None or y is None else y - x


def control_s(results):
    """the control's own CPU: upcd's compaction (its thread, its stime) apart"""
    ticks = delta(results, "control_ticks")
    if ticks is None:
        return None
    compact = delta(results, "compact_usec") or 0
    return max(0.0, ticks / USER_HZ - compact / 1e6)


def label(sc, figs):
    """the scenario's name, with what the run says it ran: (d)'s backend and
    options when asked for (UPCD_BACKEND, UPCD_ARGS), (i)'s form on a kernel with the
    "unmapped" filter (bench/host/damos-pageout.sh)"""
    r = figs[0]["results"] if figs else {}
    text = SCENARIOS[sc]
    backend = re.search(r"upcc\.upcd_backend=(\S+)", r.get("cmdline", ""))
    args = re.search(r"upcc\.upcd_args=(\S+)", r.get("cmdline", ""))
    if sc == "d" and (backend or args):
        text = " ".join(["upcd"] + ([f"--backend={backend.group(1)}"] if backend else []) +
                        (args.group(1).split(",") if args else []))
    if sc == "i" and r.get("damos_form") == "7.3":
        text = "DAMOS pageout, anon and mapped filtered out, free-memory goal"
    return f"({sc}) {text}"


def control_text(sc, figs):
    if sc in "afg":
        return "–"
    text = spread(col(figs, "control_s"), "{:.2f}")
    compact = [v for v in col(figs, "compact_s") if v is not None]
    if compact and max(compact) > 0:
        text += f' + {spread(compact, "{:.2f}")} compaction'
    # upcd's damon backend: its kdamond, counted in the control's CPU
    kdamond = [v for v in col(figs, "kdamond_s") if v is not None]
    if sc == "d" and kdamond and max(kdamond) > 0:
        text += f' (of which kdamond {spread(kdamond, "{:.2f}")})'
    return text


def psi_avg10(results, label):
    text = results.get(f"{label}_psi_some", "")
    for part in text.split(","):
        if part.startswith("avg10="):
            return float(part[6:])
    return None


def figures(path):
    host, guests = load_run(path)
    g0 = guests[0]
    marks, r = g0["marks"], g0["results"]
    io_end = marks.get("scan_end", marks.get("stream_end"))
    io_start = marks.get("scan_start", marks.get("stream_start"))
    # several guests: the end is when the first of them ends its idle phase
    ends = [g["marks"].get("idle_end") for g in guests if g["marks"].get("idle_end")]
    end_t = min(ends) if ends else host[-1]["t"]
    end = sample_at(host, end_t)
    at_io_end = sample_at(host, io_end) if io_end else end
    back_s = None
    fall = at_io_end["ram"] - end["ram"]
    if io_end and fall > 16 and len(guests) == 1:
        for s in host:
            if s["t"] >= io_end and s["ram"] <= end["ram"] + 0.1 * fall:
                back_s = s["t"] - io_end
                break
    ram_mib = float(open(os.path.join(path, "ram_mib")).read())
    # Freed, not reported: what the host still holds for a guest beyond what
    # the guest uses (RAM - MemFree): memory the guest has freed that free
    # page reporting has not handed back.
    unreported, file_end, mapped = 0.0, 0.0, []
    for i, g in enumerate(guests):
        rows = [x for x in g["rows"] if x["host_t"] <= end_t]
        held = end["per"][i] if len(guests) > 1 and i < len(end["per"]) else end["ram"]
        if rows:
            used = ram_mib - rows[-1]["MemFree_kb"] / 1024.0
            unreported += max(0.0, held - used)
            file_end += rows[-1]["file_lru_kb"] / 1024.0
        gr = g["results"]
        mapped.append((int(gr.get("maphold_min_resident", "-1")),
                       int(gr.get("maphold_resident_pages", "-1")),
                       int(gr.get("maphold_total_pages", "0"))))
    hot_ms = num(r, "hot_pass_ms")
    window = [s["ram"] for s in host if io_start and io_end and io_start <= s["t"] <= io_end]
    # the page cache without Shmem (the initramfs, PostgreSQL's SysV segment)
    cached = [(x["Cached_kb"] - x["Shmem_kb"]) / 1024.0 for x in g0["rows"]
              if io_start and io_end and io_start <= x["host_t"] <= io_end]
    tps = [v for v in (num(r, f"w5_tps_{i}") for i in (1, 2, 3)) if v is not None]
    pg_read, disk_read = num(r, "w5_pg_read_mib"), num(r, "w5_disk_read_mib")
    # PostgreSQL's reads that the guest's page cache served: the rest came
    # from the database disk (vdc) and so from the host.
    pg_hit = None
    if pg_read and disk_read is not None:
        pg_hit = min(1.0, max(0.0, 1.0 - disk_read / pg_read))
    return {
        "end_ram": end["ram"], "peak_ram": max(s["ram"] for s in host),
        "end_img": end["img"], "total_end": end["ram"] + end["img"],
        "total_peak": max(s["ram"] + s["img"] for s in host),
        "end_qemu": end["qemu"], "per_guest": end["per"],
        "back_s": back_s, "io_s": (io_end - io_start) if io_end and io_start else None,
        "unreported": unreported, "file_end": file_end, "mapped": mapped,
        "stream": num(r, "scan_mib_per_s"),
        "kswapd_s": (lambda d: None if d is None else d / USER_HZ)(delta(r, "kswapd_ticks")),
        "control_s": control_s(r),
        "compact_s": (lambda d: None if d is None else d / 1e6)(delta(r, "compact_usec")),
        "kdamond_s": (lambda d: None if d is None else d / USER_HZ)(delta(r, "kdamond_ticks")),
        "refault": delta(r, "workingset_refault_file"),
        "psi": psi_avg10(r, "io_end"),
        "act_io": delta(r, "actions", "start", "io_end"), "act_all": delta(r, "actions"),
        "hot_passes": num(r, "hot_passes"), "hot_ms": hot_ms,
        "hit": num(r, "hot_hit_ratio"), "nproc": [g["results"].get("nproc") for g in guests],
        "ram_mean": statistics.mean(window) if window else None,
        "cached_mean": statistics.mean(cached) if cached else None,
        "tps": med(tps) if len(tps) == 3 else None, "tps_runs": tps,
        "pg_read": pg_read, "disk_read": disk_read, "pg_hit": pg_hit,
        "rel_cached": num(r, "w5_rel_cached_mib"),
        "results": r, "host": host,
    }


def repeat_dirs(results_dir):
    reps = sorted((d for d in os.listdir(results_dir) if d[:1] == "r" and d[1:].isdigit()),
                  key=lambda d: int(d[1:]))
    return [os.path.join(results_dir, d) for d in reps]


def runs(results_dir, workload):
    """{scenario: [figures of repeat 1, repeat 2, ...]}"""
    found = {}
    for rep in repeat_dirs(results_dir):
        for sc in SCENARIOS:
            path = os.path.join(rep, f"{sc}-{workload}")
            try:
                found.setdefault(sc, []).append(figures(path))
            except (OSError, StopIteration, KeyError, IndexError, ValueError):
                continue
    return {sc: figs for sc, figs in found.items() if figs}


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(value, spec="{:.0f}", none="–"):
    return none if value is None else spec.format(value)


def spread(values, spec="{:.1f}"):
    """median (min-max) over the repeats"""
    values = [v for v in values if v is not None]
    if not values:
        return "–"
    m = fmt(statistics.median(values), spec)
    if len(values) < 2:
        return m
    return f"{m} ({fmt(min(values), spec)}–{fmt(max(values), spec)})"


def slowdowns(found, sc):
    """hot pass time against (a)'s in the same repeat"""
    base = found.get("a", [])
    out = []
    for i, fig in enumerate(found.get(sc, [])):
        if i < len(base) and fig["hot_ms"] and base[i]["hot_ms"]:
            out.append(fig["hot_ms"] / base[i]["hot_ms"])
    return out


def tps_ratios(found, sc):
    """W5's median TPS against (a)'s in the same repeat"""
    base = found.get("a", [])
    out = []
    for i, fig in enumerate(found.get(sc, [])):
        if i < len(base) and fig["tps"] and base[i]["tps"]:
            out.append(fig["tps"] / base[i]["tps"])
    return out


def mapped_text(figs):
    worst = min((m for fig in figs for m in fig["mapped"]), key=lambda m: m[0])
    return f"{worst[1]}/{worst[2]} (min {worst[0]})"


def col(figs, key):
    return [f[key] for f in figs]


def cmd_table(results_dir, workload):
    found = runs(results_dir, workload)
    base = found.get("a")
    if workload == "w4":
        head = ["scenario", "guests' RAM held, end (MiB)", "per guest (MiB)", "peak (MiB)",
                "host cache of image, end (MiB)", "**host total, end (MiB)**",
                "host total, peak (MiB)", "saved vs (a)", "freed, not reported (MiB)",
                "guests' file LRU, end (MiB)", "mapped file resident (worst guest)"]
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        for sc, figs in found.items():
            total = med(col(figs, "total_end"))
            saved = None
            if base and med(col(base, "total_end")):
                saved = 100.0 * (1 - total / med(col(base, "total_end")))
            per = "/".join(fmt(x) for x in figs[0]["per_guest"])
            print("| " + " | ".join([
                label(sc, figs), fmt(med(col(figs, "end_ram"))), per,
                fmt(med(col(figs, "peak_ram"))), fmt(med(col(figs, "end_img"))),
                f"**{fmt(total)}**", fmt(med(col(figs, "total_peak"))), fmt(saved, "{:.0f}%"),
                fmt(med(col(figs, "unreported"))), fmt(med(col(figs, "file_end"))),
                mapped_text(figs)]) + " |")
        return
    if workload == "w5":
        w5_table(found)
        return
    hot = workload in ("w2", "w3")
    head = ["scenario", "guest RAM held, end (MiB)", "peak (MiB)", "saved vs (a)",
            "host cache, end (MiB)", "host total, end (MiB)", "freed, not reported (MiB)",
            "guest file LRU, end (MiB)", "memory back after (s)", "I/O phase (s)",
            "stream (MiB/s)", "guest kswapd CPU (s)", "control CPU (s)",
            "refault_file Δ (pages)", "PSI mem some avg10, I/O end",
            "actions (I/O / all)", "mapped file resident"]
    if hot:
        head += ["hot passes", "hot pass (ms)", "hot hit ratio", "hot slowdown vs (a)"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for sc, figs in found.items():
        end_ram = med(col(figs, "end_ram"))
        saved = None
        if base and med(col(base, "end_ram")):
            saved = 100.0 * (1 - end_ram / med(col(base, "end_ram")))
        acts = f'{fmt(med(col(figs, "act_io")))} / {fmt(med(col(figs, "act_all")))}'
        if sc in "afg":
            acts = "–"
        row = [label(sc, figs), fmt(end_ram), fmt(med(col(figs, "peak_ram"))),
               fmt(saved, "{:.0f}%"), fmt(med(col(figs, "end_img"))),
               fmt(med(col(figs, "total_end"))), fmt(med(col(figs, "unreported"))),
               fmt(med(col(figs, "file_end"))), fmt(med(col(figs, "back_s")), "{:.1f}"),
               spread(col(figs, "io_s")), spread(col(figs, "stream"), "{:.0f}"),
               spread(col(figs, "kswapd_s"), "{:.2f}"),
               control_text(sc, figs),
               fmt(med(col(figs, "refault"))), fmt(med(col(figs, "psi")), "{:.2f}"),
               acts, mapped_text(figs)]
        if hot:
            hit = spread(col(figs, "hit"), "{:.3f}")
            if sc == "f":
                hit = "n/a (DAX: no guest cache)"
            row += [fmt(med(col(figs, "hot_passes"))), spread(col(figs, "hot_ms")), hit,
                    spread(slowdowns(found, sc), "{:.2f}x")]
        print("| " + " | ".join(row) + " |")


def w5_table(found):
    head = ["scenario", "TPS (median of 3)", "TPS vs (a)", "runs", "guest RAM held, mean (MiB)",
            "guest RAM held, end (MiB)", "guest file cache, mean (MiB)", "PostgreSQL reads (MiB)",
            "from disk (MiB)", "guest cache hit", "relation files cached, end (MiB)",
            "control CPU (s)", "guest kswapd CPU (s)",
            "stream (MiB/s)", "mapped file resident"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for sc, figs in found.items():
        runs_text = " / ".join(f"{v:.0f}" for v in figs[0]["tps_runs"])
        print("| " + " | ".join([
            label(sc, figs), fmt(med(col(figs, "tps"))),
            spread(tps_ratios(found, sc), "{:.3f}"), runs_text or "–",
            fmt(med(col(figs, "ram_mean"))), fmt(med(col(figs, "end_ram"))),
            fmt(med(col(figs, "cached_mean"))), fmt(med(col(figs, "pg_read"))),
            fmt(med(col(figs, "disk_read"))), spread(col(figs, "pg_hit"), "{:.3f}"),
            fmt(med(col(figs, "rel_cached"))), control_text(sc, figs), spread(col(figs, "kswapd_s"), "{:.2f}"),
            spread(col(figs, "stream"), "{:.0f}"), mapped_text(figs)]) + " |")


def cmd_headline(results_dir):
    w = {wl: runs(results_dir, wl) for wl in ("w1", "w2", "w3", "w4", "w5")}
    head = ["scenario", "W1 RAM held (MiB)", "W1 host total (MiB)",
            "W2 hit ratio", "W2 slowdown", "W2 RAM held (MiB)",
            "W3 hit ratio", "W3 slowdown", "W3 RAM held (MiB)", "W4 host total (MiB)",
            "W5 TPS vs (a)", "W5 RAM held, mean (MiB)"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for sc in SCENARIOS:
        if not any(sc in w[wl] for wl in w):
            continue
        row = [label(sc, next((w[wl][sc] for wl in w if sc in w[wl]), []))]
        f1 = w["w1"].get(sc, [])
        row += [fmt(med(col(f1, "end_ram"))), fmt(med(col(f1, "total_end")))]
        for wl in ("w2", "w3"):
            figs = w[wl].get(sc, [])
            hit = fmt(med(col(figs, "hit")), "{:.3f}") if sc != "f" else "n/a"
            row += [hit, fmt(med(slowdowns(w[wl], sc)), "{:.2f}x"),
                    fmt(med(col(figs, "end_ram")))]
        row += [fmt(med(col(w["w4"].get(sc, []), "total_end")))]
        f5 = w["w5"].get(sc, [])
        row += [fmt(med(tps_ratios(w["w5"], sc)), "{:.3f}"), fmt(med(col(f5, "ram_mean")))]
        print("| " + " | ".join(row) + " |")


def cmd_plot(results_dir, workload, png):
    found = runs(results_dir, workload)
    data = os.path.join(results_dir, f"plot-{workload}.dat")
    total = workload == "w4"
    with open(data, "w") as f:
        for sc, figs in found.items():
            f.write(f"# ({sc})\n")
            for s in figs[0]["host"]:
                f.write(f'{s["t"]:.1f} {s["ram"] + (s["img"] if total else 0):.1f}\n')
            f.write("\n\n")
    plots = [f"'{data}' index {i} using 1:2 with lines lw 2 title '{label(sc, found[sc])}'"
             for i, sc in enumerate(found)]
    what = ("Host total (3 guests' RAM held + host cache of the one image)" if total else
            "Host memory held by the guest (RSS of guest RAM in QEMU)")
    script = "\n".join([
        "set terminal pngcairo size 1100,640 noenhanced" if has_cairo() else
        "set terminal png size 1100,640 noenhanced",
        f"set output '{png}'",
        "set title '" + f"{what}, workload {workload.upper()}".replace("'", "''") + "'",
        "set xlabel 'seconds since QEMU start'",
        "set ylabel 'MiB'",
        "set key outside bottom center horizontal maxrows 5",
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

    found = {sc: figs[0] for sc, figs in runs(results_dir, "w1").items()}
    for sc in "ade":
        check(sc in found, f"({sc}) W1 ran to its end marker")
    for sc, fig in found.items():
        check(fig["nproc"] == ["2"], f"({sc}) guest saw 2 vCPUs: nproc={fig['nproc']}")
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
        mn, res, total = fig["mapped"][0]
        check(total > 0 and res == total and mn == total,
              f"({sc}) mapped file stayed resident: {res}/{total} at the end, min {mn}")
    if "d" in found:
        r = found["d"]["results"]
        n = int(r.get("upcd_compactions", "0") or 0)
        check(n >= 1, f"(d) upcd compacted for the reporting balloon: {n} compactions")
    if "e" in found:
        r = found["e"]["results"]
        check(r.get("unmapped_page_control") == "1",
              f"(e) guest booted with the control on: vm.unmapped_page_control={r.get('unmapped_page_control')}")
        steal = delta(r, "pgsteal_unmapped")
        check(bool(steal and steal > 0),
              f"(e) the series reclaimed during the run: pgsteal_unmapped delta={steal}")
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
    if len(argv) >= 2 and argv[0] == "headline":
        cmd_headline(argv[1])
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
