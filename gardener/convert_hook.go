// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/monkeyllm/vine/envelope"
)

// hookTimeout bounds one run of a command hook converter (G.2).
const hookTimeout = 600 * time.Second

// hookHintMax is how much of a failing command's output its hint quotes.
const hookHintMax = 200

// hookConverter runs an operator-configured command (config
// converters: {".pdf": 'pdf2md "{input}" -o "{output}"'}): any tool under
// any licence, never a dependency of this module. It always yields
// markdown.
type hookConverter struct {
	ext      string
	template string
	timeout  time.Duration // zero means hookTimeout; tests shorten it
}

func (h hookConverter) Extensions() []string { return []string{h.ext} }

func (h hookConverter) String() string { return "hook " + h.ext }

func (h hookConverter) Convert(ctx context.Context, path string) (*Conversion, error) {
	name := filepath.Base(path)
	tokens, err := splitTemplate(h.template)
	if err != nil || len(tokens) == 0 {
		return nil, envelope.New(envelope.Schema,
			fmt.Sprintf("converter command for %s in _meta/gardener.yaml is unusable: %q", h.ext, h.template),
			"write the command as 'tool \"{input}\" -o \"{output}\"' with balanced quotes")
	}
	tmp, err := os.MkdirTemp("", "gardener-hook-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, stem(path)+".md")
	args := make([]string, len(tokens))
	r := strings.NewReplacer("{input}", path, "{output}", out)
	for i, t := range tokens {
		args[i] = r.Replace(t)
	}

	timeout := h.timeout
	if timeout == 0 {
		timeout = hookTimeout
	}
	run, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(run, args[0], args[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// A child that leaves a grandchild holding the pipes must not hold
	// the writer lane past the timeout.
	cmd.WaitDelay = 5 * time.Second
	killGroup(cmd)
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err() // the caller gave up: not this converter's failure
		}
		return nil, hookFailure(run, name, args[0], timeout, err, stderr.String(), stdout.String())
	}
	text := validUTF8(stdout.Bytes())
	if b, err := os.ReadFile(out); err == nil {
		text = validUTF8(b)
	}
	if strings.TrimSpace(text) == "" {
		return nil, envelope.New(envelope.Schema,
			fmt.Sprintf("converter command produced no markdown for %s: no {output} file and nothing on stdout", name),
			"make the command write markdown to {output} or to stdout")
	}
	return &Conversion{Kind: KindMarkdown, Title: markdownTitle(text, path), Markdown: text}, nil
}

func hookFailure(run context.Context, name, program string, timeout time.Duration, err error, stderr, stdout string) error {
	if run.Err() != nil {
		return envelope.New(envelope.Schema,
			fmt.Sprintf("converter command for %s timed out after %s", name, timeout),
			"make the command finish sooner, or convert the file outside the forest and adopt the result").
			With("timeout_seconds", timeout.Seconds())
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return envelope.New(envelope.Schema,
			fmt.Sprintf("converter command for %s could not start %q: %v", name, program, err),
			"install the tool or fix the command in _meta/gardener.yaml converters")
	}
	out := strings.TrimSpace(stderr)
	if out == "" {
		out = strings.TrimSpace(stdout)
	}
	return envelope.New(envelope.Schema,
		fmt.Sprintf("converter command failed for %s (exit %d)", name, exit.ExitCode()),
		firstRunes(out, hookHintMax))
}

// firstRunes returns the first n runes of s.
func firstRunes(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// splitTemplate splits a command template the way the reference does
// (a non-POSIX shell split): tokens are separated by whitespace, a token
// that opens with a quote runs to the matching quote, backslashes are
// kept (Windows paths), and one layer of surrounding quotes is stripped.
// Placeholders are substituted after splitting, so a path with spaces
// stays one argument.
func splitTemplate(s string) ([]string, error) {
	var tokens []string
	runes := []rune(s)
	for i := 0; i < len(runes); {
		if unicode.IsSpace(runes[i]) {
			i++
			continue
		}
		start := i
		if q := runes[i]; q == '"' || q == '\'' {
			i++
			for i < len(runes) && runes[i] != q {
				i++
			}
			if i == len(runes) {
				return nil, errors.New("no closing quotation")
			}
			i++ // the closing quote ends the token
		} else {
			for i < len(runes) && !unicode.IsSpace(runes[i]) {
				i++
			}
		}
		tokens = append(tokens, unquote(string(runes[start:i])))
	}
	return tokens, nil
}

func unquote(t string) string {
	if len(t) >= 2 && (t[0] == '"' || t[0] == '\'') && t[len(t)-1] == t[0] {
		return t[1 : len(t)-1]
	}
	return t
}
