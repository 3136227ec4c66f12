# shellcheck shell=sh
# Sourced by the guest's case scripts (faults.sh, negative.sh,
# isolated.sh): result <0 = ok> <description> [diagnostic] prints the next
# KTAP result, the diagnostic as "#" lines before a failed one; n counts
# the results, failed the failed ones.
n=0
failed=0

result() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n $2"
	else
		[ -n "$3" ] && echo "$3" | sed 's/^/# /'
		echo "not ok $n $2"
		failed=$((failed + 1))
	fi
}
