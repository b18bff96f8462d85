"""coverage_report.py PREFIX TARGET=LCOV...: the fuzz coverage report from `llvm-cov export
-format=lcov` of each target (its own binary and profile, so nothing is lost merging profiles
of different binaries).  Prints line and function coverage of device-model/src per target and
for all targets together (a line or function counts once reached by any target), the
per-file table, and the functions no input reaches: one by one in the files the targets
exercise, and only the file names where no function runs at all (the event loop, the ports,
main).  A function is its definition: template instantiations and the copies in several
binaries count as one, reached when any of them ran."""
import collections
import shutil
import subprocess
import sys

SOURCES = "device-model/src/"


def read_lcov(path, prefix):
    """{file: (lines {line: count}, functions {line: (count, mangled)})} for device-model/src."""
    files = {}
    file = None
    names = {}
    with open(path, encoding="utf-8") as lcov:
        for record in lcov:
            kind, _, value = record.rstrip("\n").partition(":")
            if kind == "SF":
                file = value[len(prefix):] if value.startswith(prefix + SOURCES) else None
                if file:
                    files.setdefault(file, ({}, {}))
                names = {}
            elif file is None:
                continue
            elif kind == "FN":
                line, name = value.split(",", 1)
                names[name] = int(line)
                count, first = files[file][1].get(int(line), (0, name))
                files[file][1][int(line)] = (count, first)
            elif kind == "FNDA":
                count, name = value.split(",", 1)
                line = names[name]
                old, first = files[file][1][line]
                files[file][1][line] = (old + int(count), first)
            elif kind == "DA":
                line, count = value.split(",")[:2]
                lines = files[file][0]
                lines[int(line)] = lines.get(int(line), 0) + int(count)
    return files


def merge(into, files):
    for file, (lines, functions) in files.items():
        all_lines, all_functions = into.setdefault(file, ({}, {}))
        for line, count in lines.items():
            all_lines[line] = all_lines.get(line, 0) + count
        for line, (count, name) in functions.items():
            old, first = all_functions.get(line, (0, name))
            all_functions[line] = (old + count, first)


def totals(files):
    lines = sum(len(l) for l, _ in files.values())
    lines_hit = sum(1 for l, _ in files.values() for c in l.values() if c)
    functions = sum(len(f) for _, f in files.values())
    functions_hit = sum(1 for _, f in files.values() for c, _ in f.values() if c)
    return lines_hit, lines, functions_hit, functions


def ratio(hit, whole):
    return f"{hit}/{whole} ({100.0 * hit / whole if whole else 0:.1f}%)"


def demangle(names):
    tool = ["c++filt", "-p"] if shutil.which("c++filt") else ["llvm-cxxfilt"]
    plain = []
    for name in names:  # local functions carry their file: "file.cpp;_ZN..." or "file.cpp:_ZN..."
        plain.append(name.rsplit(";", 1)[-1].rsplit(":", 1)[-1] if ".cpp" in name else name)
    out = subprocess.run(tool, input="\n".join(plain), capture_output=True, text=True,
                         check=True).stdout.splitlines()
    return dict(zip(names, out))


def main():
    prefix = sys.argv[1].rstrip("/") + "/"
    everything = {}
    print(f"{'target':18} {'lines':>22} {'functions':>18}")
    for argument in sys.argv[2:]:
        target, _, path = argument.partition("=")
        files = read_lcov(path, prefix)
        merge(everything, files)
        lines_hit, lines, functions_hit, functions = totals(files)
        print(f"{target:18} {ratio(lines_hit, lines):>22} {ratio(functions_hit, functions):>18}")
    lines_hit, lines, functions_hit, functions = totals(everything)
    print(f"{'all targets':18} {ratio(lines_hit, lines):>22} {ratio(functions_hit, functions):>18}")
    print()

    print("Per file, all targets together:")
    print(f"{'file':58} {'lines':>20} {'functions':>16}")
    for file in sorted(everything):
        lines_hit, lines, functions_hit, functions = totals({file: everything[file]})
        print(f"{file[len(SOURCES):]:58} {ratio(lines_hit, lines):>20} "
              f"{ratio(functions_hit, functions):>16}")
    print()

    reached = sorted(f for f, (_, fns) in everything.items() if any(c for c, _ in fns.values()))
    idle = sorted(f for f in everything if f not in reached)
    missed = {f: sorted((line, name) for line, (c, name) in everything[f][1].items() if not c)
              for f in reached}
    names = demangle(sorted({name for fns in missed.values() for _, name in fns}))
    print(f"Functions no input reaches in the {len(reached)} files the targets exercise "
          f"({sum(len(m) for m in missed.values())}):")
    for file in reached:
        if missed[file]:
            print(f"{file[len(SOURCES):]}:")
            for line, name in missed[file]:
                print(f"  {line:5d}  {names[name]}")
    print()
    print(f"Files no target enters ({len(idle)}):")
    for file in idle:
        print(f"  {file[len(SOURCES):]} ({len(everything[file][1])} functions)")


if __name__ == "__main__":
    main()
