#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
"""Run rdma-core's pyverbs test suite and record one line per test.

  pyverbs-run.py run SUITE_ROOT RAW_FILE [run_tests.py arguments...]
      Runs the suite as its own run_tests.py does (same argument parser,
      same loader, same unittest runner with -v), and also appends to
      RAW_FILE, flushed as it goes:
          START <test id>
          <PASS|SKIP|FAIL|ERROR> <test id>\t<detail>
      so a test that kills the interpreter is still named (its START has
      no result).

  pyverbs-run.py report SUITE MODULE RAW_FILE EXIT_STATUS [MODULE RAW_FILE EXIT_STATUS]...
      Prints "PASS|FAIL|SKIP: SUITE/MODULE/TEST detail" lines for each
      module's raw file (one process for all: a python start costs seconds
      under TCG): SKIP lines carry the suite's own reason; an ERROR
      is a FAIL; a test started but never finished, a run that ended by a
      signal or a run that ran no test at all is a FAIL of the module.
      TEST is the test method's name, prefixed by its class where two
      classes of the module share a method name.

  pyverbs-run.py split RAW_FILE PREFIX EXIT_STATUS MODULE...
      Splits the raw file of one run over several modules into
      PREFIX<module>.raw files and prints "<module> <state>" for each:
      "ran" (its tests all finished), "crashed" (the run ended, by a signal
      or timeout, inside one of its tests) or "missing" (none of its tests
      started: run it again on its own).
"""
import collections
import os
import re
import sys
import traceback
import unittest


def _short(text, limit=300):
    text = ' '.join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + '...'


def _exc_line(err):
    """The last line of a formatted exception: its type and message."""
    lines = traceback.format_exception_only(err[0], err[1])
    return _short(lines[-1] if lines else str(err[1]))


def run(argv):
    root, raw = argv[0], argv[1]
    tests_dir = os.path.join(root, 'tests')
    sys.path[:0] = [root, tests_dir]
    sys.argv = [os.path.join(tests_dir, 'run_tests.py')] + argv[2:]
    out = open(raw, 'a', buffering=1)

    def emit(line):
        out.write(line + '\n')
        out.flush()

    class LineResult(unittest.TextTestResult):
        def startTest(self, test):
            emit('START ' + test.id())
            super().startTest(test)

        def addSuccess(self, test):
            super().addSuccess(test)
            emit('PASS %s\t' % test.id())

        def addSkip(self, test, reason):
            super().addSkip(test, reason)
            emit('SKIP %s\t%s' % (test.id(), _short(str(reason))))

        def addError(self, test, err):
            super().addError(test, err)
            emit('ERROR %s\t%s' % (test.id(), _exc_line(err)))

        def addFailure(self, test, err):
            super().addFailure(test, err)
            emit('FAIL %s\t%s' % (test.id(), _exc_line(err)))

        def addSubTest(self, test, subtest, err):
            super().addSubTest(test, subtest, err)
            if err is not None:
                kind = 'FAIL' if issubclass(err[0], test.failureException) else 'ERROR'
                emit('%s %s\tsubtest %s: %s' % (kind, test.id(), _short(subtest._subDescription(), 80),
                                                 _exc_line(err)))

        def addExpectedFailure(self, test, err):
            super().addExpectedFailure(test, err)
            emit('PASS %s\texpected failure' % test.id())

        def addUnexpectedSuccess(self, test):
            super().addUnexpectedSuccess(test)
            emit('FAIL %s\tunexpected success' % test.id())

    # The suite's own entry point, with our result class.
    from importlib.machinery import SourceFileLoader
    from args_parser import parser
    module = SourceFileLoader('tests', os.path.join(tests_dir, '__init__.py')).load_module()
    parser.parse_args()
    runner = unittest.TextTestRunner(resultclass=LineResult, verbosity=2)
    prog = unittest.main(module=module, testRunner=runner, exit=False)
    return 0 if prog.result.wasSuccessful() else 1


def report(argv):
    suite = argv[0]
    for i in range(1, len(argv) - 2, 3):
        report_module(suite, argv[i], argv[i + 1], int(argv[i + 2]))
    return 0


def report_module(suite, module, raw, status):
    started, results = [], collections.OrderedDict()
    try:
        with open(raw) as f:
            for line in f:
                line = line.rstrip('\n')
                if line.startswith('START '):
                    started.append(line[6:])
                    continue
                head, _, detail = line.partition('\t')
                kind, _, tid = head.partition(' ')
                if kind in ('PASS', 'SKIP', 'FAIL', 'ERROR') and tid:
                    prev = results.get(tid)
                    # A subtest failure, then the test's own end: keep the failure.
                    if prev and prev[0] in ('FAIL', 'ERROR'):
                        continue
                    results[tid] = (kind, detail)
    except OSError:
        pass

    def method(tid):
        return tid.rsplit('.', 1)[-1]

    def klass(tid):
        parts = tid.split('.')
        return parts[-2] if len(parts) >= 2 else ''

    ids = list(results) + [t for t in started if t not in results]
    count = collections.Counter(method(t) for t in ids)

    def name(tid):
        m = method(tid)
        # setUpClass errors and the like have ids such as "setUpClass (tests.x.Y)".
        if ' ' in tid or '(' in tid:
            return _short(tid.replace(' ', '_').replace('(', '').replace(')', ''), 120)
        return m if count[m] == 1 else '%s.%s' % (klass(tid), m)

    lines = []
    for tid, (kind, detail) in results.items():
        if kind == 'PASS':
            lines.append('PASS: %s/%s/%s%s' % (suite, module, name(tid), ' ' + detail if detail else ''))
        elif kind == 'SKIP':
            lines.append('SKIP: %s/%s/%s %s' % (suite, module, name(tid), detail))
        else:
            lines.append('FAIL: %s/%s/%s %s: %s' % (suite, module, name(tid), kind, detail))
    unfinished = [t for t in started if t not in results]
    for tid in unfinished:
        lines.append('FAIL: %s/%s/%s started but never finished (run status %d)' %
                     (suite, module, name(tid), status))
    if status not in (0, 1):
        lines.append('FAIL: %s/%s/crash the module\'s run ended with status %d (signal or timeout)' %
                     (suite, module, status))
    elif not results and not unfinished:
        lines.append('FAIL: %s/%s/run no test ran (status %d)' % (suite, module, status))
    print('\n'.join(lines))


def split(argv):
    raw, prefix, status, modules = argv[0], argv[1], int(argv[2]), argv[3:]
    pattern = re.compile(r'(?:^|[ .(])tests\.test_([A-Za-z0-9_]+)\.')
    lines = {m: [] for m in modules}
    last_start = None
    try:
        with open(raw) as f:
            for line in f:
                found = pattern.search(line)
                if not found or found.group(1) not in lines:
                    continue
                lines[found.group(1)].append(line)
                if line.startswith('START '):
                    last_start = found.group(1)
    except OSError:
        pass
    for m in modules:
        with open(prefix + m + '.raw', 'w') as f:
            f.writelines(lines[m])
        if not lines[m]:
            state = 'missing'
        elif m == last_start and status not in (0, 1):
            state = 'crashed'
        else:
            state = 'ran'
        print(m, state)
    return 0


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == 'run':
        return run(sys.argv[2:])
    if len(sys.argv) >= 6 and sys.argv[1] == 'split':
        return split(sys.argv[2:])
    if len(sys.argv) >= 6 and (len(sys.argv) - 3) % 3 == 0 and sys.argv[1] == 'report':
        return report(sys.argv[2:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main())
