#!/usr/bin/env python3
"""Mutation of switch-case conditions, which gremlins cannot judge.

Go's coverage blocks start after a case's colon, so gremlins reports every
mutant inside a `case <condition>:` as NOT COVERED and never runs it; in the
SEO assessments those conditions are the thresholds users see. This script
mutates them the way gremlins would (boundary: < <=, > >=; negation: == !=,
< >=, > <=), one at a time, runs the package's tests against each, and
restores the file. Usage:

    scripts/mutate_cases.py PKGDIR FILE.go [FILE.go ...] [-- go test flags]

Prints KILLED or LIVED per mutant and a summary line.
"""
import re
import subprocess
import sys

args = sys.argv[1:]
extra = []
if "--" in args:
    i = args.index("--")
    args, extra = args[:i], args[i + 1:]
pkg, files = args[0], args[1:]

OPS = [("<=", ["<", ">"]), (">=", [">", "<"]), ("==", ["!="]), ("!=", ["=="]), ("<", ["<=", ">="]), (">", [">=", "<="])]
op_re = re.compile(r"<=|>=|==|!=|<(?![-<=])|>(?![>=])")
case_re = re.compile(r"^(\s*case )(.*)(:\s*(//.*)?)$")

killed = lived = 0
for name in files:
    path = f"{pkg}/{name}"
    src = open(path).read()
    lines = src.split("\n")
    for ln, line in enumerate(lines):
        m = case_re.match(line)
        if not m:
            continue
        cond = m.group(2)
        for om in op_re.finditer(cond):
            op = om.group(0)
            for new in dict(OPS)[op]:
                mutated = cond[:om.start()] + new + cond[om.end():]
                lines2 = list(lines)
                lines2[ln] = m.group(1) + mutated + m.group(3)
                open(path, "w").write("\n".join(lines2))
                try:
                    r = subprocess.run(["go", "test", "-count=1", *extra, "./" + pkg],
                                       capture_output=True, text=True, timeout=600)
                    ok = r.returncode == 0
                finally:
                    open(path, "w").write(src)
                status = "LIVED" if ok else "KILLED"
                if ok:
                    lived += 1
                else:
                    killed += 1
                print(f"{status:7s} {name}:{ln + 1}: {op} -> {new}   ({cond.strip()})", flush=True)
total = killed + lived
print(f"{pkg} {' '.join(files)}: case conditions: killed {killed}, lived {lived}, efficacy {100 * killed / max(total, 1):.1f}%")
