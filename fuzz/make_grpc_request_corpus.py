#!/usr/bin/python3
"""Writes the seed corpus of fuzz/grpc_request_fuzz.cc: valid and invalid requests of
proto/schedkit/v1/scheduler.proto in protobuf's wire encoding, each after the byte that
picks the message (0 Submit, 1 ListJobs, 2 DrainNode, 3 UndrainNode).

    python3 fuzz/make_grpc_request_corpus.py fuzz/corpus/grpc_request

The encoding is written out here (varints, fixed64 doubles, length-delimited bytes,
packed repeated fields) so that no protobuf package is needed; the field numbers are the
.proto's.
"""
import os
import struct
import sys

SUBMIT, LIST_JOBS, DRAIN, UNDRAIN = 0, 1, 2, 3


def varint(n):
    n &= (1 << 64) - 1  # Negative int32/int64 are 10-byte two's complement varints.
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field_varint(number, value):
    return varint(number << 3 | 0) + varint(value)


def field_double(number, value):
    return varint(number << 3 | 1) + struct.pack("<d", value)


def field_bytes(number, data):
    if isinstance(data, str):
        data = data.encode()
    return varint(number << 3 | 2) + varint(len(data)) + data


def packed_doubles(number, values):
    return field_bytes(number, b"".join(struct.pack("<d", v) for v in values))


def packed_varints(number, values):
    return field_bytes(number, b"".join(varint(v) for v in values))


def submit(command=("sleep", "1"), shell=False, gpus=1, cpus=0, mem_gb=0.0, duration_s=0.0,
           user="", vc="", priority=0, checkpoint_dir="", name="", working_dir="",
           iteration_time_s=0.0, stage_times_s=(), idempotency_key=""):
    m = b"".join(field_bytes(1, a) for a in command)
    if shell:
        m += field_varint(2, 1)
    for number, value in ((3, gpus), (4, cpus), (9, priority)):
        if value:
            m += field_varint(number, value)
    for number, value in ((5, mem_gb), (6, duration_s), (13, iteration_time_s)):
        if value:
            m += field_double(number, value)
    for number, value in ((7, user), (8, vc), (10, checkpoint_dir), (11, name),
                          (12, working_dir), (15, idempotency_key)):
        if value:
            m += field_bytes(number, value)
    if stage_times_s:
        m += packed_doubles(14, stage_times_s)
    return m


def list_jobs(states=(), page_size=0, page_token=""):
    m = packed_varints(1, states) if states else b""
    if page_size:
        m += field_varint(2, page_size)
    if page_token:
        m += field_bytes(3, page_token)
    return m


SEEDS = {
    # Valid submits: the store round trip runs.
    "submit_argv": (SUBMIT, submit()),
    "submit_shell_everything": (SUBMIT, submit(
        command=("echo $SCHEDKIT_JOB_ID; sleep 5",), shell=True, gpus=2, cpus=4, mem_gb=16.5,
        duration_s=3600, user="alice", vc="vc1", priority=-3, checkpoint_dir="/tmp/ckpt",
        name="résumé ✓", working_dir="/tmp", iteration_time_s=0.25,
        stage_times_s=(0.05, 0.15, 0.05), idempotency_key="4f6c2a9e")),
    "submit_zero_gpus": (SUBMIT, submit(gpus=0)),
    # Invalid submits, one field each.
    "submit_empty_command": (SUBMIT, submit(command=())),
    "submit_bad_utf8_user": (SUBMIT, submit(user=b"caf\xc3(")),
    "submit_surrogate_name": (SUBMIT, submit(name=b"\xed\xa0\x80")),
    "submit_nul_in_vc": (SUBMIT, submit(vc=b"a\x00b")),
    "submit_huge_mem": (SUBMIT, submit(mem_gb=1.7e10)),
    "submit_nan_duration": (SUBMIT, submit(duration_s=float("nan"))),
    "submit_negative_gpus": (SUBMIT, submit(gpus=-1)),
    "submit_too_many_gpus": (SUBMIT, submit(gpus=9)),
    "submit_two_stage_times": (SUBMIT, submit(stage_times_s=(1.0, 2.0))),
    "submit_shell_two_elements": (SUBMIT, submit(command=("a", "b"), shell=True)),
    "submit_relative_working_dir": (SUBMIT, submit(working_dir="relative/dir")),
    "submit_long_relative_checkpoint_dir": (SUBMIT, submit(
        checkpoint_dir="x" + "é" * 100 + "\n" + "y" * 3000)),
    "submit_long_name": (SUBMIT, submit(name="n" * 300)),
    "submit_long_key": (SUBMIT, submit(idempotency_key="k" * 200)),
    # ListJobs.
    "list_all": (LIST_JOBS, list_jobs()),
    "list_page": (LIST_JOBS, list_jobs(states=(1, 2), page_size=5, page_token="42")),
    "list_bad_state": (LIST_JOBS, list_jobs(states=(7,))),
    "list_negative_page_size": (LIST_JOBS, list_jobs(page_size=-1)),
    "list_bad_token": (LIST_JOBS, list_jobs(page_token="4\xb22")),
    "list_long_token": (LIST_JOBS, list_jobs(page_token="9" * 19)),
    # DrainNode / UndrainNode.
    "drain_local": (DRAIN, field_bytes(1, "local")),
    "drain_empty": (DRAIN, b""),
    "undrain_bad_utf8": (UNDRAIN, field_bytes(1, b"caf\xc3(")),
    "undrain_long_name": (UNDRAIN, field_bytes(1, "n" * 300)),
}


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_grpc_request_corpus.py OUT_FOLDER")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, (which, message) in sorted(SEEDS.items()):
        with open(os.path.join(out, name), "wb") as f:
            f.write(bytes([which]) + message)
    print(f"{len(SEEDS)} seeds in {out}")


if __name__ == "__main__":
    main()
