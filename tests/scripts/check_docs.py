#!/usr/bin/env python3
"""Fails when README.md or docs/*.md name a command or a variable that no longer exists.

  python3 tests/scripts/check_docs.py [--root DIR]

(a) Commands: every `scripts/NAME` named in README.md and docs/*.md exists, and every --option
    written after a script or a program of this tree, in a code block or an inline code span, is
    one that program accepts: for scripts/run.sh the options of run.sh, of
    scripts/bench_runner.py and of the driver (bench/amgt_solve/options.cpp, since run.sh passes
    the others on); for amgt-solve the driver's; for amgt-kernel-bench the kernel bench's
    (bench/kernels); for amgt-entry-bench bench/entry/main.cpp's; for another script the options its own source spells. A `--cases FILE`
    names a file that exists.
(b) Variables: the run-time table of docs/configuration.md ("## Run-time variables") lists
    exactly the variables the library reads (library_variables() in
    plugin/precision/schedule.cpp, plus any getenv("AMGT...") in the library, the glue and the
    benchmarks); its scripts' table ("## Variables of the scripts") lists every variable of
    tool_variables() and only variables some script, CMake file or test reads; its CMake table
    ("## CMake options") only options the CMake files define; and every AMGT_* name written in
    README.md or docs/*.md occurs somewhere in the sources.
Adding a run-time variable to the library means adding one row to the run-time table.
Every failure is printed with the file, the thing that is missing and why; exit status 1.
"""
import argparse
import os
import re
import sys

PROGRAMS_BARE = {"amgt-solve", "amgt-kernel-bench", "amgt-entry-bench"}
SKIP_DIRS = {".git", "data", "records", "__pycache__", "_deps"}


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def source_files(root):
    """Tracked-looking source files: no build trees, no data, no raw records, no Markdown, no
    hidden folders but .ci (a device bundle such as .carry), no links that lead nowhere."""
    for d, dirs, files in os.walk(root):
        rel = os.path.relpath(d, root)
        dirs[:] = [x for x in dirs if x not in SKIP_DIRS and not (rel == "." and x.startswith("build"))
                   and not (x.startswith(".") and x != ".ci")]
        for f in files:
            path = os.path.join(d, f)
            if f.endswith((".md", ".xz", ".gz", ".png", ".mtx")) or not os.path.isfile(path):
                continue
            yield path


def options_in(text, pattern=r'(?<![\w-])(--[a-z][a-z0-9-]*)'):
    return set(re.findall(pattern, text))


class Accepted:
    """The options each program of the tree accepts, read from its source."""

    def __init__(self, root):
        self.root = root
        self.cache = {}
        driver = set(re.findall(r'"(--[a-z][a-z0-9-]*)', read(os.path.join(root, "bench/amgt_solve/options.cpp"))))
        self.driver = driver | {"--help"}
        kb = set()
        kdir = os.path.join(root, "bench/kernels")
        for f in os.listdir(kdir):
            if f.endswith((".cpp", ".h")):
                kb |= set(re.findall(r'"(--[a-z][a-z0-9-]*)', read(os.path.join(kdir, f))))
        self.kernel_bench = kb | {"--help"}
        self.entry_bench = set(re.findall(r'"(--[a-z][a-z0-9-]*)', read(os.path.join(root, "bench/entry/main.cpp")))) | {"--help"}

    def for_script(self, name):
        if name in self.cache:
            return self.cache[name]
        path = os.path.join(self.root, "scripts", name)
        acc = options_in(read(path)) | {"--help"}
        if name == "run.sh":
            runner = read(os.path.join(self.root, "scripts/bench_runner.py"))
            acc |= set(re.findall(r'add_argument\(\s*"(--[a-z][a-z0-9-]*)"', runner)) | self.driver
        self.cache[name] = acc
        return acc


def commands_of(text):
    """The command texts of a Markdown page: fenced code blocks' lines (joined across
    backslash continuations) and inline code spans."""
    out = []
    fences = re.compile(r"^```[^\n]*\n(.*?)^```", re.S | re.M)
    for m in fences.finditer(text):
        body = m.group(1).replace("\\\n", " ")
        out += [ln for ln in body.split("\n") if ln.strip()]
    rest = fences.sub("", text)
    out += [s.replace("\n", " ") for s in re.findall(r"`([^`]+)`", rest)]
    return out


def check_commands(root, page, text, acc, errors):
    for name in sorted(set(re.findall(r"(?<![\w/.-])(?:\./)?scripts/([\w.-]+\.(?:sh|py))", text))):
        if not os.path.isfile(os.path.join(root, "scripts", name)):
            errors.append(f"{page}: names scripts/{name}, which does not exist")
    for cmd in commands_of(text):
        cmd = cmd.split(" #")[0] if not cmd.lstrip().startswith("#") else ""
        for seg in re.split(r"&&|\|\||;|\||\(|\)", cmd):
            toks = seg.split()
            program = None  # (label, accepted options)
            first = True
            for i, tok in enumerate(toks):
                if first and re.match(r"^[A-Z_][A-Z0-9_]*=", tok):
                    continue  # an environment assignment before the command
                m = re.match(r"^(?:\./|[\w./-]*/)?scripts/([\w.-]+\.(?:sh|py))$", tok) or \
                    (re.match(r"^(run\.sh|test\.sh|matrix\.py|plot\.py|fuzz\.sh)$", tok) and
                     re.match(r"^(.*)$", tok))
                base = os.path.basename(tok)
                if m and os.path.isfile(os.path.join(root, "scripts", m.group(1))):
                    program = (f"scripts/{m.group(1)}", acc.for_script(m.group(1)))
                elif base in PROGRAMS_BARE:
                    program = (base, {"amgt-solve": acc.driver, "amgt-entry-bench": acc.entry_bench}.get(base, acc.kernel_bench))
                elif first and not tok.startswith("-"):
                    program = None  # another program (cmake, ctest, mpirun, ...): not checked
                first = False
                if program and tok.startswith("--"):
                    opt = tok.split("=")[0].rstrip(",.:")
                    if not re.match(r"^--[a-z][a-z0-9-]*$", opt):
                        continue
                    if opt not in program[1]:
                        errors.append(f"{page}: `{cmd.strip()}`: {program[0]} does not accept {opt}")
                    if opt == "--cases" and i + 1 < len(toks):
                        f = toks[i + 1]
                        if re.match(r"^[\w./-]+\.tsv$", f) and not os.path.isfile(os.path.join(root, f)):
                            errors.append(f"{page}: `{cmd.strip()}`: the case file {f} does not exist")


def list_in(text, func):
    m = re.search(func + r"\(\)\s*\{(.*?)return v;", text, re.S)
    return set(re.findall(r'"(AMGT(?:_[A-Z0-9_]+)?)"', m.group(1))) if m else None


def table_rows(text, heading):
    m = re.search(r"^## " + re.escape(heading) + r".*?$(.*?)(?=^## |\Z)", text, re.S | re.M)
    if not m:
        return None
    return set(re.findall(r"^\|\s*`(AMGT(?:_[A-Z0-9_]+)?)`\s*\|", m.group(1), re.M))


def check_variables(root, pages, errors):
    conf_path = os.path.join(root, "docs/configuration.md")
    if not os.path.isfile(conf_path):
        errors.append("docs/configuration.md does not exist")
        return
    conf = read(conf_path)
    sched_path = "plugin/precision/schedule.cpp"
    sched = read(os.path.join(root, sched_path))
    library = list_in(sched, "library_variables")
    tools = list_in(sched, "tool_variables")
    if library is None or tools is None:
        errors.append(f"{sched_path}: library_variables() or tool_variables() not found: update this test")
        return
    sources = {os.path.relpath(p, root): read(p) for p in source_files(root)}
    # variables the library and the programs read by name
    read_by_name = {}
    for rel, text in sources.items():
        if rel.startswith(("plugin/", "hypre_glue/", "bench/")) and rel.endswith((".c", ".cpp", ".h", ".cu", ".cuh")):
            for v in re.findall(r'(?:getenv|value_of|env_or)\(\s*"(AMGT(?:_[A-Z0-9_]+)?)"', text):
                read_by_name.setdefault(v, rel)
    runtime = table_rows(conf, "Run-time variables")
    scripts_table = table_rows(conf, "Variables of the scripts")
    cmake_table = table_rows(conf, "CMake options")
    for name, rows in (("Run-time variables", runtime), ("Variables of the scripts", scripts_table),
                       ("CMake options", cmake_table)):
        if rows is None:
            errors.append(f"docs/configuration.md: no section '## {name}'")
    if None in (runtime, scripts_table, cmake_table):
        return
    for v in sorted(library):
        if v not in runtime:
            errors.append(f"docs/configuration.md: {v} is read by the library ({sched_path}, "
                          "library_variables()) but has no row in the run-time table")
    for v, rel in sorted(read_by_name.items()):
        if v not in runtime and v not in tools and v not in library:
            errors.append(f"docs/configuration.md: {v} is read in {rel} but has no row in the run-time table")
    for v in sorted(runtime):
        if v not in library:
            errors.append(f"docs/configuration.md: {v} has a row in the run-time table but the library "
                          f"does not read it (not in {sched_path} library_variables())")
    for v in sorted(tools):
        if v not in scripts_table:
            errors.append(f"docs/configuration.md: {v} is a scripts' variable ({sched_path}, "
                          "tool_variables()) but has no row in the scripts' table")
    tool_text = "\n".join(t for r, t in sources.items()
                          if r.startswith(("scripts/", "cmake/", "tests/")) or r.endswith("CMakeLists.txt") or
                          (r.startswith("bench/") and r.endswith((".sh", ".py"))))
    for v in sorted(scripts_table):
        if not re.search(r"\b" + v + r"\b", tool_text):
            errors.append(f"docs/configuration.md: {v} has a row in the scripts' table but no script, "
                          "CMake file or test reads it")
    cmake_text = "\n".join(t for r, t in sources.items() if r.endswith(("CMakeLists.txt", ".cmake")))
    for v in sorted(cmake_table):
        if not re.search(r"(option\(\s*|set\(\s*)" + v + r"\b", cmake_text):
            errors.append(f"docs/configuration.md: the CMake option {v} is not defined by any CMake file")
    all_text = "\n".join(sources.values())
    known = set(re.findall(r"\bAMGT(?:_[A-Z0-9_]+)?\b", all_text))
    for page, text in pages.items():
        for v in sorted(set(re.findall(r"\bAMGT_[A-Z0-9_]+\b", text))):
            if v.endswith("_"):
                continue
            if v not in known:
                errors.append(f"{page}: names {v}, which no source file of the tree mentions")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../..")))
    root = ap.parse_args().root
    pages = {"README.md": read(os.path.join(root, "README.md"))}
    ddir = os.path.join(root, "docs")
    for f in sorted(os.listdir(ddir)) if os.path.isdir(ddir) else []:
        if f.endswith(".md"):
            pages[f"docs/{f}"] = read(os.path.join(ddir, f))
    errors = []
    acc = Accepted(root)
    for page, text in pages.items():
        check_commands(root, page, text, acc, errors)
    check_variables(root, pages, errors)
    for e in errors:
        print("FAIL:", e)
    if errors:
        print(f"{len(errors)} problem(s) in README.md and docs/*.md")
        return 1
    print(f"ok: {len(pages)} pages, their commands and variables exist")
    return 0


if __name__ == "__main__":
    sys.exit(main())
