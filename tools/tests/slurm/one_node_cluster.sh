#!/usr/bin/env bash
# A one-node Slurm cluster for tests, from Debian's slurmctld, slurmd and munge, run by root in a
# folder of its own (nothing under /etc is touched): two fake GPUs through gres (regular files as
# the devices: Slurm counts them and warns that they are not devices), one partition `ci`, the
# controller on port 16817. The tests export SLURM_CONF=DIR/slurm.conf.
#   one_node_cluster.sh start DIR      writes the config, starts munged, slurmctld and slurmd, waits
#                                      until the node is idle (exit 1 with the logs if not in 30 s)
#   one_node_cluster.sh restart-controller DIR   stops slurmctld and starts it again
#   one_node_cluster.sh stop DIR       ends the daemons
set -euo pipefail
cmd="${1:-}" dir="${2:-}"
if [[ -z "$cmd" || -z "$dir" ]]; then
  echo "usage: $0 start|restart-controller|stop DIR" >&2
  exit 2
fi
export SLURM_CONF="$dir/slurm.conf"

stop_pid_file() {  # ends the daemon whose pid the file holds, waits for it
  local file="$1"
  [[ -f "$file" ]] || return 0
  local pid
  pid="$(cat "$file")"
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  rm -f "$file"
}

case "$cmd" in
  start)
    mkdir -p "$dir"/{state,spool,log,munge,dev}
    host="$(hostname -s)"
    touch "$dir/dev/gpu0" "$dir/dev/gpu1"
    [[ -f "$dir/munge/munge.key" ]] || {
      dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 2>/dev/null
      chmod 400 "$dir/munge/munge.key"
    }
    cat > "$dir/slurm.conf" <<CONF
ClusterName=kbuildci
SlurmctldHost=$host(127.0.0.1)
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldPort=16817
SlurmdPort=16818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=1000 Gres=gpu:2 State=UNKNOWN
PartitionName=ci Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
    echo "NodeName=$host Name=gpu File=$dir/dev/gpu[0-1]" > "$dir/gres.conf"
    munged --force --socket="$dir/munge/munge.sock" --key-file="$dir/munge/munge.key" \
      --pid-file="$dir/munge/munged.pid" --log-file="$dir/munge/munged.log" \
      --seed-file="$dir/munge/seed"
    slurmctld
    slurmd
    for _ in $(seq 60); do
      if [[ "$(sinfo -h -o %t 2>/dev/null)" == idle ]]; then exit 0; fi
      sleep 0.5
    done
    echo "$0: the node did not become idle in 30 s" >&2
    sinfo >&2 || true
    tail -n 20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 || true
    exit 1
    ;;
  restart-controller)
    stop_pid_file "$dir/slurmctld.pid"
    slurmctld
    for _ in $(seq 60); do sinfo >/dev/null 2>&1 && exit 0; sleep 0.5; done
    echo "$0: slurmctld did not come back in 30 s" >&2
    exit 1
    ;;
  stop)
    scancel --user=root 2>/dev/null || true
    stop_pid_file "$dir/slurmd.pid"
    stop_pid_file "$dir/slurmctld.pid"
    stop_pid_file "$dir/munge/munged.pid"
    ;;
  *)
    echo "usage: $0 start|restart-controller|stop DIR" >&2
    exit 2
    ;;
esac
