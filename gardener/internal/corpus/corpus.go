// SPDX-License-Identifier: Apache-2.0

// Package corpus writes a tree of real-looking text documents for the
// Gardener's tests and benchmarks: nested department folders holding
// runbooks, decision records, meeting notes and reports, in markdown and
// plain text, with headings, lists, tables, varied prose, numbered file
// names and team codes. The tree is a pure function of the options.
package corpus

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// Options shape a generated tree.
type Options struct {
	// Files is the number of documents to write.
	Files int
	// Seed varies the text; the same seed gives the same bytes.
	Seed uint64
}

var (
	departments = []string{"back-end", "front_end", "operations", "finance", "legal", "research", "support", "people-ops"}
	subfolders  = []string{"runbooks", "decisions", "meetings", "reports", "onboarding", "incidents"}
	subjects    = []string{"provider budget", "database failover", "release train", "vendor contract", "on-call rotation",
		"quarterly forecast", "search ranking", "backup retention", "access review", "latency budget", "cache warming",
		"invoice reconciliation", "data retention", "customer escalation", "capacity plan", "feature flags"}
	people = []string{"Ana Souza", "Bruno Lima", "Carla Mendes", "Diego Rocha", "Elena Duarte", "Fábio Nunes",
		"Gabriela Pires", "Hugo Tavares", "Inês Correia", "João Batista"}
	verbs   = []string{"reviewed", "approved", "postponed", "measured", "rolled out", "documented", "escalated", "reduced", "replaced", "audited"}
	objects = []string{"the retry policy", "the staging cluster", "the nightly export", "the billing job", "the alert thresholds",
		"the access tokens", "the cold storage tier", "the index rebuild", "the vendor SLA", "the deployment checklist"}
	qualifiers = []string{"after the March incident", "ahead of the audit", "for the next quarter", "without downtime",
		"in two phases", "with the vendor's help", "before the freeze", "under the new policy", "as a stopgap", "for all regions"}
	codes = []string{"ADR", "OPS", "FIN", "INC", "SEC", "BE", "PPL"}
)

// Generate writes opt.Files documents under dir (created when missing)
// and returns their paths relative to dir, "/"-separated, in write order.
func Generate(dir string, opt Options) ([]string, error) {
	rng := rand.New(rand.NewPCG(opt.Seed, 0x5eed))
	out := make([]string, 0, opt.Files)
	for i := range opt.Files {
		rel, text := document(rng, i)
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return out, err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return out, err
		}
		out = append(out, rel)
	}
	return out, nil
}

// document is the i-th document: its path and its text.
func document(rng *rand.Rand, i int) (string, string) {
	dept := departments[i%len(departments)]
	sub := subfolders[(i/len(departments))%len(subfolders)]
	subject := pick(rng, subjects)
	kind := i % 4
	var folder string
	switch {
	case i%7 == 0:
		folder = dept
	case i%11 == 0:
		folder = fmt.Sprintf("%s/%s/%d", dept, sub, 2024+i%3)
	default:
		folder = dept + "/" + sub
	}
	number := 100 + i
	slug := strings.ReplaceAll(subject, " ", "-")
	ext := ".md"
	if i%5 == 4 {
		ext = ".txt"
	}
	name := fmt.Sprintf("%d-%s%s", number, slug, ext)
	if i%9 == 3 {
		name = fmt.Sprintf("%s notes %d%s", strings.ToUpper(subject[:1])+subject[1:], number, ext)
	}
	var title string
	switch kind {
	case 0:
		title = fmt.Sprintf("Runbook: %s", subject)
	case 1:
		title = fmt.Sprintf("%s-%04d %s decision", pick(rng, codes), number, subject)
	case 2:
		title = fmt.Sprintf("Meeting notes — %s, week %d", subject, 1+i%52)
	default:
		title = fmt.Sprintf("Report on %s (%d)", subject, 2024+i%3)
	}
	return folder + "/" + name, body(rng, title, subject, kind, ext == ".txt")
}

func body(rng *rand.Rand, title, subject string, kind int, plain bool) string {
	var b strings.Builder
	if !plain {
		b.WriteString("# " + title + "\n\n")
	} else {
		b.WriteString(title + "\n\n")
	}
	b.WriteString(paragraph(rng, subject, 2+rng.IntN(3)) + "\n\n")
	sections := []string{"Context", "Decision", "Steps", "Risks", "Follow-up", "Numbers"}
	for s := range 2 + rng.IntN(3) {
		head := sections[(kind+s)%len(sections)]
		if plain {
			b.WriteString(head + "\n\n")
		} else {
			b.WriteString("## " + head + "\n\n")
		}
		switch (kind + s) % 3 {
		case 0:
			b.WriteString(paragraph(rng, subject, 3+rng.IntN(4)) + "\n\n")
		case 1:
			for range 3 + rng.IntN(3) {
				b.WriteString("- " + sentence(rng, subject) + "\n")
			}
			b.WriteString("\n")
		default:
			b.WriteString("| item | owner | value |\n| --- | --- | --- |\n")
			for r := range 2 + rng.IntN(3) {
				fmt.Fprintf(&b, "| %s %d | %s | %d%% |\n", subject, r+1, pick(rng, people), 5+rng.IntN(90))
			}
			b.WriteString("\n" + paragraph(rng, subject, 1+rng.IntN(2)) + "\n\n")
		}
	}
	return b.String()
}

func paragraph(rng *rand.Rand, subject string, n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = sentence(rng, subject)
	}
	return strings.Join(s, " ")
}

func sentence(rng *rand.Rand, subject string) string {
	switch rng.IntN(4) {
	case 0:
		return fmt.Sprintf("%s %s %s %s.", pick(rng, people), pick(rng, verbs), pick(rng, objects), pick(rng, qualifiers))
	case 1:
		return fmt.Sprintf("The %s work %s %s, saving %d hours a month.", subject, pick(rng, verbs), pick(rng, objects), 2+rng.IntN(60))
	case 2:
		return fmt.Sprintf("We %s %s %s; %s owns the next step.", pick(rng, verbs), pick(rng, objects), pick(rng, qualifiers), pick(rng, people))
	}
	return fmt.Sprintf("Costs for %s moved from %d to %d per month %s.", subject, 1000+rng.IntN(9000), 1000+rng.IntN(9000), pick(rng, qualifiers))
}

func pick(rng *rand.Rand, list []string) string { return list[rng.IntN(len(list))] }
