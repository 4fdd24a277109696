# OpenBench's build contract (and a short way to build for anyone): `make` builds the release
# binary and copies it to `sentinel` here, or to EXE=path; EVALFILE=file embeds that network
# instead of src/eval/network.nnue (OpenBench passes it when a test names a network; build.rs
# reads it as SENTINEL_EVALFILE, relative paths from here).
EXE ?= sentinel
EVALFILE ?=
export SENTINEL_EVALFILE := $(EVALFILE)

# cargo names the Windows binary sentinel.exe, and OpenBench looks for EXE with .exe there.
ifeq ($(OS),Windows_NT)
SUFFIX := .exe
endif

all:
	cargo build --release
	cp target/release/sentinel$(SUFFIX) $(EXE)$(SUFFIX)

.PHONY: all
