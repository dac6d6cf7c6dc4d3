#!/bin/sh
# Where fleets run perfreport: the Kubernetes Job and DaemonSet manifests
# parse and give the pod what perfreport needs (host PID namespace,
# privileged, the host's /sys), and their commands as shipped work twice on
# a fresh node (issue 30, 8); the Ansible playbook passes
# ansible-playbook --syntax-check and, run once against localhost with a
# local connection, fetches a real bundle.
. tests/lib.sh
T=fleet
for f in examples/kubernetes/perfreport-job.yaml examples/kubernetes/perfreport-daemonset.yaml; do
    n=$(basename "$f" .yaml)
    r=$(python3 - "$f" <<'PY' 2>&1
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
spec = d['spec']['template']['spec']
c = spec['containers'][0]
mounts = {m['mountPath'] for m in c['volumeMounts']}
host = {v['name']: v.get('hostPath', {}).get('path') for v in spec['volumes']}
problems = []
if not spec.get('hostPID'): problems.append('no hostPID')
if not c.get('securityContext', {}).get('privileged'): problems.append('not privileged')
if '/sys' not in mounts or '/sys' not in host.values(): problems.append('no host /sys')
if not any('perfreport' in x for x in c['command']): problems.append('does not run perfreport')
print('ok' if not problems else ', '.join(problems))
PY
)
    [ "$r" = ok ] && ok "fleet_k8s_$n" || not_ok "fleet_k8s_$n" "$r"
done
# The manifests' commands as shipped, on a fresh node: the hostPath volume
# an empty new directory (what DirectoryOrCreate makes), perfreport the
# built binary; only the paths, the window (-d 1) and the DaemonSet's hourly
# sleep (one round) are changed.  Each must leave a bundle (and the
# DaemonSet its metrics file), twice in a row, as an hourly DaemonSet and a
# Job applied again on the same node do.
if [ -x "$PERFREPORT_BIN" ] && need_root; then
    bin=$(cd "$(dirname "$PERFREPORT_BIN")" && pwd)/$(basename "$PERFREPORT_BIN")
    for f in examples/kubernetes/perfreport-job.yaml examples/kubernetes/perfreport-daemonset.yaml; do
        n=$(basename "$f" .yaml)
        node=$TMPD/node-$n
        mkdir -p "$node"
        r=$(python3 - "$f" "$bin" "$node" <<'PY' 2>&1
import glob, os, subprocess, sys, yaml
path, binary, node = sys.argv[1:4]
d = yaml.safe_load(open(path))
spec = d['spec']['template']['spec']
c = spec['containers'][0]
vols = {v['name']: v for v in spec['volumes']}
# the node's directories: each hostPath volume mounted read-write, fresh
subst = {}
for m in c['volumeMounts']:
    hp = vols[m['name']].get('hostPath', {})
    if hp.get('type') == 'DirectoryOrCreate':
        subst[m['mountPath']] = node + hp['path']
def fix(arg):
    arg = arg.replace('/usr/bin/perfreport', binary).replace('-d 30', '-d 1')
    arg = arg.replace('sleep 3570', 'break')
    for a, b in subst.items():
        arg = arg.replace(a, b)
    return arg
argv = [fix(a) for a in c['command']]
if '-d' in argv:
    argv[argv.index('-d') + 1] = '1'
problems = []
for k in (1, 2):
    for dst in subst.values():
        os.makedirs(dst, exist_ok=True)
    p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    bundles = [b for dst in subst.values()
               for b in glob.glob(dst + '/**/report.json', recursive=True)]
    if p.returncode not in (0, 1, 2) or len(bundles) != k:
        problems.append('run %d: exit %d, %d bundles: %s' % (
            k, p.returncode, len(bundles), (p.stderr or p.stdout).strip()[-200:]))
        break
    if '--metrics' in ' '.join(argv):
        proms = [q for dst in subst.values() for q in glob.glob(dst + '/**/*.prom', recursive=True)]
        if not proms:
            problems.append('run %d: no metrics file' % k)
print('ok' if not problems else '; '.join(problems))
PY
)
        [ "$r" = ok ] && ok "fleet_k8s_${n}_fresh_node" || not_ok "fleet_k8s_${n}_fresh_node" "$r"
    done
else
    skip fleet_k8s_fresh_node "needs root and $PERFREPORT_BIN"
fi
if ! command -v ansible-playbook >/dev/null 2>&1; then
    skip fleet_ansible "ansible-playbook not installed (Debian ansible-core)"
    exit 0
fi
pb=examples/ansible/perfreport.yml
if ansible-playbook --syntax-check -i localhost, "$pb" >"$TMPD/syn" 2>&1; then ok fleet_ansible_syntax
else not_ok fleet_ansible_syntax "$(tail -3 "$TMPD/syn")"; fi
[ -x "$PERFREPORT_BIN" ] && need_root || { skip fleet_ansible_local_run "needs root and $PERFREPORT_BIN"; exit 0; }
bin=$(cd "$(dirname "$PERFREPORT_BIN")" && pwd)/$(basename "$PERFREPORT_BIN")
ANSIBLE_STDOUT_CALLBACK=default ANSIBLE_LOCAL_TEMP=$TMPD/ans-tmp ANSIBLE_HOME=$TMPD/ans-home \
    ansible-playbook -i localhost, -c local -e target=all -e duration=1 -e "perfreport=$bin" \
    -e "remote_dir=$TMPD/remote" -e "local_dir=$TMPD/bundles" "$pb" >"$TMPD/run.log" 2>&1
rc=$?
tgz=$TMPD/bundles/localhost/last-bundle.tar.gz
if [ "$rc" = 0 ] && [ -s "$tgz" ] && tar tzf "$tgz" | grep -q '/report.json$'; then
    ok fleet_ansible_local_run
else
    not_ok fleet_ansible_local_run "exit $rc: $(grep -E 'fatal|FAILED|msg' "$TMPD/run.log" | head -3)"
fi
