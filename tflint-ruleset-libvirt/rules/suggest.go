package rules

import (
	"strings"

	"github.com/virtxml/terraform-provider-libvirt/tflint-ruleset-libvirt/schema"
)

// closestName returns the attribute of node a misspelt key most likely
// meant: first one that differs only in underscores and case (0.1's
// v_host_user for vhost_user, 0.9.0's autoport for auto_port), then the
// nearest by edit distance when it is close enough to be a typo.
func closestName(node *schema.Node, key string) string {
	squash := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }
	names := node.Names()
	for _, n := range names {
		if squash(n) == squash(key) {
			return n
		}
	}
	best, bestDist := "", -1
	for _, n := range names {
		d := editDistance(strings.ToLower(key), n)
		if bestDist < 0 || d < bestDist {
			best, bestDist = n, d
		}
	}
	// At most a third of the key's letters wrong (targte -> target is 2 of 6).
	if bestDist >= 0 && bestDist <= max(1, len(key)/3) {
		return best
	}
	return ""
}

// editDistance is the optimal string alignment distance: insertions,
// deletions, substitutions and swaps of neighbours (targte -> target) each
// count one.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
