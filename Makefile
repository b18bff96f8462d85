# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# ornic top-level targets.  Everything runs inside the testbed root (a
# Debian 13 debootstrap under $(ORNIC_CACHE), default /var/cache/ornic),
# created and updated by `make testbed`.

.PHONY: all demo bench check check-debug compare soak fuzz fuzz-coverage testbed kernel kernel-kasan model modules deb docs lint shell clean help

all: model

help:
	@echo "make demo         boot a guest with two ornic NICs: ibv_devinfo, rdma link, perftest vs rxe"
	@echo "                  (LINK_LAYER=ib: two InfiniBand HCAs, OpenSM, ibstat, perftest by LID)"
	@echo "make bench        ornic, rxe and siw perftest numbers in one guest (release model): results/bench-<time>"
	@echo "make check        build everything, run host unit tests and guest suites"
	@echo "make check-debug  the same with the KASAN test kernel"
	@echo "make compare      pyverbs, ornic's verbs tests and the storage protocols on ornic and on rxe, side by side"
	@echo "make soak         100 rmmod and 50 kill -9 cycles under RDMA traffic, a million QP create/destroy"
	@echo "                  cycles, hours (make check runs 3, 6 and 2000; SOAK_QP_CYCLES=N churns fewer)"
	@echo "make fuzz         every libFuzzer target for FUZZ_SECONDS (60) each: executions, coverage, crashes"
	@echo "                  (FUZZ_LONG=1: 10^7 executions each, hours)"
	@echo "make fuzz-coverage  llvm-cov of the fuzz corpora over device-model/src: per target, per file,"
	@echo "                  the functions no input reaches"
	@echo "make lint         checkpatch --strict, clang-format, shellcheck, docs, README, man pages, version"
	@echo "make docs         Documentation/ as HTML in build/docs/html (Sphinx, warnings are errors)"
	@echo "make testbed      create/update the testbed root (cached)"
	@echo "make kernel       build the guest test kernel (cached)"
	@echo "make model        build the device model"
	@echo "make modules      build the kernel modules against the test kernel"
	@echo "make deb          Debian packages (ornic-dkms, ibverbs-providers-ornic, ornic-model) in build/deb"
	@echo "make shell        a shell inside the testbed (checkout at /src)"

# LINK_LAYER=ib: two InfiniBand HCAs under OpenSM instead of two RoCE NICs.
demo:
	ORNIC_DEMO_LINK_LAYER=$(LINK_LAYER) qemu-tests/demo.sh

# Numbers, never judged (not part of make check): BENCH_REPS, BENCH_SECONDS,
# BENCH_POINTS, BENCH_MTUS, BENCH_STACKS ... (see qemu-tests/bench.sh).
bench:
	qemu-tests/bench.sh

check:
	qemu-tests/check.sh

check-debug:
	ORNIC_FLAVOUR=kasan qemu-tests/check.sh

# rxe next to ornic in the datapath, pyverbs and ulp groups, and the rxe and
# siw baselines: comparisons that judge nothing, so they are not part of
# `make check` (compare.txt in the results directory).
compare:
	ORNIC_CHECK_ONLY="model driver provider datapath pyverbs ulp rxe siw" ORNIC_DATAPATH_KINDS="ornic rxe" \
		ORNIC_PYVERBS_KINDS="ornic rxe" ORNIC_ULP_KINDS="ornic rxe" qemu-tests/check.sh

# The soak group with its full cycle counts (make check runs fewer).  The
# QP churn runs in two processes with no ping-pong beside it (make check
# runs it beside one), about 300 cycles a second: a million in an hour;
# SOAK_QP_CYCLES=N churns fewer, SOAK_RELOADS and SOAK_KILLS set the other
# cycles.
SOAK_QP_CYCLES ?= 1000000
SOAK_RELOADS ?= 100
SOAK_KILLS ?= 50
soak:
	ORNIC_CHECK_ONLY="model driver provider soak" SOAK_RELOADS=$(SOAK_RELOADS) SOAK_KILLS=$(SOAK_KILLS) \
		SOAK_QP_CYCLES=$(SOAK_QP_CYCLES) SOAK_CHURN_TRAFFIC=0 qemu-tests/check.sh

# Every fuzz target of device-model/fuzz for FUZZ_SECONDS each, or with
# FUZZ_LONG=1 for FUZZ_RUNS executions each (10^7), on the checked-in seeds
# plus the corpus earlier runs grew in $(ORNIC_CACHE)/fuzz/corpus, where new
# inputs go; fails if any target crashes, hangs or runs out of memory.
# FUZZ_TARGETS="bar0 roce" runs only those directories of device-model/fuzz.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
FUZZ_LONG ?=
FUZZ_RUNS ?= $(if $(FUZZ_LONG),10000000)
fuzz: testbed
	qemu-tests/testbed/enter.sh env FUZZ_RUNS=$(FUZZ_RUNS) device-model/fuzz/fuzz.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# What those corpora reach: clang source-based coverage of device-model/src
# per target and per file, and the functions no input reaches, in
# $(ORNIC_CACHE)/fuzz/coverage/report.txt (cached by sources and corpora).
fuzz-coverage: testbed
	qemu-tests/testbed/enter.sh device-model/fuzz/coverage.sh $(FUZZ_TARGETS)

testbed:
	qemu-tests/testbed/mkroot.sh

kernel: testbed
	qemu-tests/kernel/build.sh base

kernel-kasan: testbed
	qemu-tests/kernel/build.sh kasan

model: testbed
	qemu-tests/testbed/enter.sh bash -c 'cmake -S device-model -B build/device-model -G Ninja && ninja -C build/device-model'

# The out-of-tree kernel modules (driver, KUnit suites) against the test
# kernel; KDIR=<kernel build dir> builds against another kernel instead.
modules: kernel
	qemu-tests/testbed/enter.sh bash -c 'make -C $${KDIR:-$$(qemu-tests/kernel/kernel-dir.sh base)} M=/src MO=/src/build/modules W=1 CONFIG_ORNIC_KUNIT_TEST=m modules'

# Debian packages from debian/, built in the testbed and checked by lintian
# (errors and warnings fail): build/deb/*.deb.
deb: testbed
	qemu-tests/testbed/enter.sh qemu-tests/make-deb.sh

lint: testbed
	qemu-tests/lint.sh

# Documentation/ as HTML with Sphinx, as the kernel's documentation is built:
# every warning an error, every reference checked (qemu-tests/docs.sh).
docs: testbed
	qemu-tests/docs.sh

shell: testbed
	qemu-tests/testbed/enter.sh bash -i

clean:
	rm -rf build
