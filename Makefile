# SPDX-License-Identifier: GPL-2.0
# hugetmpfs: build the patched kernel, the module, the guest image and tests;
# boot the guest (make run) or run the test suite in it (make check).

CACHE ?= $(or $(HUGETMPFS_CACHE),/var/cache/hugetmpfs)
# When this make started: what was built after it was built by this run.
MAKE_START := $(shell date +%s)
export HUGETMPFS_CACHE := $(CACHE)
BUILD := $(CURDIR)/build

KDIR = $(shell scripts/build-kernel.sh --path debug 2>/dev/null)
BENCH_KDIR = $(shell scripts/build-kernel.sh --path bench 2>/dev/null)
ROOTFS = $(shell rootfs/build-rootfs.sh --path 2>/dev/null)
# Kbuild writes its objects next to the sources: build a copy in $(BUILD).
MODSRC := $(BUILD)/src
MODULE := $(MODSRC)/hugetmpfs/hugetmpfs.ko
TEST_SRCS := $(wildcard tests/*.c)
TEST_BINS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRCS))
TEST_CFLAGS := -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -Iinclude/uapi
# The module built a second time against the non-debug kernel, for make bench.
BENCH_MODSRC := $(BUILD)/bench-src
BENCH_MODULE := $(BENCH_MODSRC)/hugetmpfs/hugetmpfs.ko
BENCH_SRCS := $(filter-out bench/bench.h,$(wildcard bench/*.c))
BENCH_BINS := $(patsubst bench/%.c,$(BUILD)/bench/%,$(BENCH_SRCS))

.PHONY: all deps kernel rootfs module tests run check checkpatch sparse \
	clean distclean bench-deps bench-kernel bench-module bench-bins bench \
	fstests-build fstests soak install uninstall deb check-install \
	check-build user

all: module rootfs tests bench-bins fstests-build

deps:
	@scripts/install-deps.sh

# The kernel and rootfs scripts are no-ops when their cache is current.
# check-series.sh: kernel/'s git am series gives kernel-prereq.patch's tree.
kernel: deps
	@scripts/check-series.sh
	@MAKEFLAGS= scripts/build-kernel.sh debug >/dev/null

rootfs: deps
	@rootfs/build-rootfs.sh >/dev/null

# build-module KERNEL-TREE COPY-DIR
define build-module
	@mkdir -p $(2)
	@rsync -a --delete --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
		--exclude='*.mod*' --exclude=modules.order --exclude=Module.symvers \
		hugetmpfs include dkms.conf $(2)/
	@+$(MAKE) -s -C "$(1)" M=$(2)/hugetmpfs modules
endef

module: kernel
	$(call build-module,$(KDIR),$(MODSRC))

tests: deps $(TEST_BINS) $(BUILD)/tests/hugetmpfsctl $(BUILD)/tests/README.md \
	user
	@rm -rf $(BUILD)/tests/user && cp -a $(USER_DIR) $(BUILD)/tests/user

# What an installed system has, for make run's guest to put in /usr/local:
# hugetmpfsctl and the manual page (t-readme.sh does the same).
USER_DIR := $(BUILD)/user
user: $(USER_DIR)/sbin/hugetmpfsctl $(USER_DIR)/share/man/man5/hugetmpfs.5

$(USER_DIR)/sbin/hugetmpfsctl: $(BUILD)/tools/hugetmpfsctl
	install -D -m 0755 $< $@

$(USER_DIR)/share/man/man5/hugetmpfs.5: man/hugetmpfs.5
	install -D -m 0644 $< $@

# t-readme.sh runs the README's guest session as written.
$(BUILD)/tests/README.md: README.md
	@mkdir -p $(@D)
	cp $< $@

# User tools; the guest finds hugetmpfsctl next to the tests (on its PATH).
TOOL_CFLAGS := -O2 -Wall -Wextra -Iinclude/uapi
$(BUILD)/tools/hugetmpfsctl: tools/hugetmpfsctl.c include/uapi/linux/hugetmpfs.h
	@mkdir -p $(@D)
	$(CC) $(TOOL_CFLAGS) -Werror -o $@ $<

$(BUILD)/tests/hugetmpfsctl: $(BUILD)/tools/hugetmpfsctl
	@mkdir -p $(@D)
	cp $< $@

$(BUILD)/tests/%: tests/%.c $(wildcard tests/*.h) include/uapi/linux/hugetmpfs.h
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -o $@ $<

# Benchmarks: the programs run at toy size in make check too (harness-bench.sh).
bench-bins: $(BENCH_BINS)

$(BUILD)/bench/%: bench/%.c bench/bench.h
	@mkdir -p $(@D)
	$(CC) $(TEST_CFLAGS) -o $@ $<

bench-deps: deps
	@scripts/install-deps.sh bench

bench-kernel: deps
	@scripts/build-kernel.sh bench >/dev/null

bench-module: bench-kernel
	$(call build-module,$(BENCH_KDIR),$(BENCH_MODSRC))

# make bench [QUICK=1] [BENCH_ONLY='glob of workloads']
bench: bench-deps bench-module rootfs bench-bins
	@scripts/bench.sh --kernel "$(BENCH_KDIR)/arch/x86/boot/bzImage" \
		--rootfs "$(ROOTFS)" --module $(BENCH_MODULE) \
		--bins $(BUILD)/bench $(if $(QUICK),--quick)

# fstests built on the host; nothing (and its test skipped) without a source.
FSTESTS_TGZ = $(shell scripts/build-fstests.sh --path 2>/dev/null)
fstests-build: deps
	@MAKEFLAGS= scripts/build-fstests.sh >/dev/null || [ $$? = 3 ]

# make fstests [FSTESTS_ARGS='-g quick'] [FSTESTS_KERNEL=bench]
FSTESTS_KERNEL ?= debug
fstests: fstests-build rootfs $(if $(filter bench,$(FSTESTS_KERNEL)),bench-module,module)
	@scripts/fstests.sh --rootfs "$(ROOTFS)" --fstests "$(FSTESTS_TGZ)" \
		$(if $(filter bench,$(FSTESTS_KERNEL)), \
		--kernel "$(BENCH_KDIR)/arch/x86/boot/bzImage" --module $(BENCH_MODULE), \
		--kernel "$(KDIR)/arch/x86/boot/bzImage" --module $(MODULE))

# make run [CMD='shell command'] [SHARE=/host/dir]
run: all user
	scripts/qemu-run.sh --kernel "$(KDIR)/arch/x86/boot/bzImage" \
		--rootfs "$(ROOTFS)" \
		--module $(MODULE) --timeout 0 --add $(USER_DIR) \
		$(if $(SHARE),--share "$(SHARE)") $(if $(CMD),--cmd "$$CMD")

# make check [T='glob of test names']: the tests, and the install suite
# whenever what installing depends on changed since it last passed (but not
# in a run that had to build the kernel or the guest image: see
# docs/testing.md).
check: check-build
	@scripts/check.sh --kernel "$(KDIR)/arch/x86/boot/bzImage" \
		--rootfs "$(ROOTFS)" \
		--module $(MODULE) --tests $(BUILD)/tests --bench $(BUILD)/bench \
		$(if $(wildcard $(FSTESTS_TGZ)),--fstests "$(FSTESTS_TGZ)") \
		--deb $(DEB_DIR) --headers "$$(scripts/kernel-headers.sh $(KDIR))" \
		--install-stamp "$$(scripts/install-stamp.sh $(KDIR) $(ROOTFS))" \
		--install-kdir "$(KDIR)" --started $(MAKE_START) \
		--harness-stamp "$$(scripts/harness-stamp.sh $(KDIR) $(ROOTFS) \
			$(FSTESTS_TGZ))"

# Two at a time: on a cold run the guest image (mostly downloading and
# unpacking) and fstests build while the kernel compiles. (A target of its
# own: make expands check's recipe, with its $(wildcard), once this is done.)
# The scripts that run make of their own get an empty MAKEFLAGS: they choose
# their own -j, outside this make's jobserver.
check-build:
	@$(MAKE) --no-print-directory -j2 all deb

# make check-install: the install suite alone, always: make install on the
# host, DKMS and the Debian package in the guest, which builds the module
# against the test kernel (README, Install).
check-install: module rootfs tests deb
	@scripts/check-make-install.sh "$(KDIR)"
	@scripts/check.sh --kernel "$(KDIR)/arch/x86/boot/bzImage" \
		--rootfs "$(ROOTFS)" \
		--module $(MODULE) --tests $(BUILD)/tests --suite install \
		--deb $(DEB_DIR) --headers "$$(scripts/kernel-headers.sh $(KDIR))"

# make soak [T=soak-NAME] [SOAK_*=...] (docs/testing.md, Soak): hours.
# The guest gets 8G (HUGETMPFS_MEM): soak-collapse holds 2 GiB of files.
soak: module rootfs tests fstests-build
	@HUGETMPFS_TIMEOUT=$${HUGETMPFS_TIMEOUT:-86400} \
	HUGETMPFS_MEM=$${HUGETMPFS_MEM:-8G} \
	scripts/check.sh --kernel "$(KDIR)/arch/x86/boot/bzImage" \
		--rootfs "$(ROOTFS)" \
		--module $(MODULE) --tests $(BUILD)/tests --suite soak \
		$(if $(wildcard $(FSTESTS_TGZ)),--fstests "$(FSTESTS_TGZ)")

# make install [KERNELRELEASE=...] [DESTDIR=...] [PREFIX=/usr/local]: for a
# machine that runs a patched kernel and has its build tree (README, Install).
# The kernel's modules_install puts the module in extra/ (signing and
# compressing it as that kernel's configuration asks); depmod is run here, as
# Kbuild skips it for a headers-only tree (no System.map).
KERNELRELEASE ?= $(shell uname -r)
INSTALL_KDIR ?= /lib/modules/$(KERNELRELEASE)/build
PREFIX ?= /usr/local
MANDIR ?= $(PREFIX)/share/man
INSTALL_MODSRC := $(BUILD)/install-src

install:
	@test -f "$(INSTALL_KDIR)/Makefile" || { echo "install: no kernel build" \
		"tree at $(INSTALL_KDIR) (set INSTALL_KDIR or KERNELRELEASE)" >&2; exit 2; }
	@rm -rf $(INSTALL_MODSRC) && mkdir -p $(INSTALL_MODSRC)/hugetmpfs
	@cp -R hugetmpfs/Kbuild hugetmpfs/*.[ch] $(INSTALL_MODSRC)/hugetmpfs/
	@cp -R include dkms.conf $(INSTALL_MODSRC)/
	$(MAKE) -C "$(INSTALL_KDIR)" M=$(INSTALL_MODSRC)/hugetmpfs modules
	$(MAKE) -C "$(INSTALL_KDIR)" M=$(INSTALL_MODSRC)/hugetmpfs \
		INSTALL_MOD_PATH=$(DESTDIR) INSTALL_MOD_DIR=extra modules_install
	depmod $(if $(DESTDIR),-b $(DESTDIR)) -a $(KERNELRELEASE)
	install -D -m 0644 man/hugetmpfs.5 $(DESTDIR)$(MANDIR)/man5/hugetmpfs.5
	$(CC) $(TOOL_CFLAGS) -o $(INSTALL_MODSRC)/hugetmpfsctl tools/hugetmpfsctl.c
	install -D -m 0755 $(INSTALL_MODSRC)/hugetmpfsctl $(DESTDIR)$(PREFIX)/sbin/hugetmpfsctl

uninstall:
	rm -f $(DESTDIR)/lib/modules/$(KERNELRELEASE)/extra/hugetmpfs.ko*
	rm -f $(DESTDIR)$(MANDIR)/man5/hugetmpfs.5
	rm -f $(DESTDIR)$(PREFIX)/sbin/hugetmpfsctl
	depmod $(if $(DESTDIR),-b $(DESTDIR)) -a $(KERNELRELEASE)

# The Debian package hugetmpfs-dkms, built with Debian's tools (deps step),
# and the DKMS source tree it installs, for the guest's install-dkms.sh.
DEB_DIR := $(BUILD)/deb
deb: deps
	@MAKEFLAGS= scripts/build-deb.sh $(DEB_DIR)

checkpatch: kernel
	@perl "$(KDIR)/scripts/checkpatch.pl" --strict --no-tree -q \
		-f hugetmpfs/*.[ch] include/uapi/linux/*.h
	@scripts/check-doc-links.sh >/dev/null
	@scripts/check-calls.py >/dev/null || scripts/check-calls.py

sparse: module
	@$(MAKE) -s -C "$(KDIR)" M=$(MODSRC)/hugetmpfs C=2 modules

clean:
	rm -rf $(BUILD)

distclean: clean
	rm -rf "$(CACHE)"
