#!/usr/bin/env bash
# A real two-node Slurm cluster on this machine, for tests (recipe:
# ../shared/docs/reference/slurm-single-host.md). Everything lives under DIR.
#   test_cluster.sh start DIR   -> prints the slurm.conf path once both nodes are idle
#   test_cluster.sh stop DIR
set -euo pipefail
cmd=${1:?start|stop}
dir=$(realpath -m "${2:?DIR}")

stop() {
  for pidfile in "$dir"/*.pid; do
    [ -f "$pidfile" ] || continue
    kill "$(cat "$pidfile")" 2>/dev/null || true
  done
  sleep 1
  for pidfile in "$dir"/*.pid; do
    [ -f "$pidfile" ] || continue
    kill -9 "$(cat "$pidfile")" 2>/dev/null || true
    rm -f "$pidfile"
  done
}

free_port() {
  /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

start() {
  mkdir -p "$dir"/{state,spool,log,dev}
  for g in 0 1 2 3; do ln -sf /dev/null "$dir/dev/nvidia$g"; done
  local host; host=$(hostname -s)
  local p_ctl p_d p_n1 p_n2
  p_ctl=$(free_port); p_d=$(free_port); p_n1=$(free_port); p_n2=$(free_port)
  cat > "$dir/slurm.conf" <<CONF
ClusterName=schedkittest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
SlurmctldPort=$p_ctl
SlurmdPort=$p_d
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
ReturnToService=2
NodeName=n1 NodeHostname=$host NodeAddr=127.0.0.1 Port=$p_n1 CPUs=2 RealMemory=1000 Gres=gpu:4
NodeName=n2 NodeHostname=$host NodeAddr=127.0.0.1 Port=$p_n2 CPUs=2 RealMemory=1000 Gres=gpu:4
PartitionName=gpu Nodes=n[1-2] Default=YES MaxTime=INFINITE State=UP
CONF
  echo "Name=gpu File=$dir/dev/nvidia[0-3]" > "$dir/gres.conf"
  export SLURM_CONF="$dir/slurm.conf"
  slurmctld -f "$SLURM_CONF" -i
  slurmd -f "$SLURM_CONF" -N n1
  slurmd -f "$SLURM_CONF" -N n2
  for _ in $(seq 1 60); do
    if [ "$(sinfo -h -N -o '%T' 2>/dev/null | grep -c '^idle$')" = 2 ]; then
      echo "$SLURM_CONF"
      return 0
    fi
    sleep 1
  done
  echo "test_cluster.sh: the nodes did not become idle; see $dir/log" >&2
  sinfo -N >&2 || true
  stop
  return 1
}

case "$cmd" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac
