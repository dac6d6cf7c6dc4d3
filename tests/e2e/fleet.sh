#!/bin/sh
# Where fleets run perfreport: the Kubernetes Job and DaemonSet manifests
# parse and give the pod what perfreport needs (host PID namespace,
# privileged, the host's /sys); the Ansible playbook passes
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
