// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
)

// InitOptions configure Init.
type InitOptions struct {
	// Summary of the master branch; empty means a sentence naming the title.
	Summary string
	// Now is the clock for the created/updated dates and the commit time.
	Now func() time.Time
}

// InitResult describes a new forest.
type InitResult struct {
	Root   string `json:"root"`
	Title  string `json:"title"`
	Commit string `json:"commit"`
}

const schemaSummary = "Node and edge types valid in this forest. New types are declared here " +
	"before first use; the Vine rejects anything not declared."

// Init creates an empty forest in dir (created when missing): the master
// _index.md, _meta/schema.md with the default dialect, the forest
// .gitignore, and the forest's own git repository with one commit. It never
// overwrites: a directory that already holds _index.md answers E_SCHEMA.
// On failure every file Init created is removed again.
func Init(ctx context.Context, dir, title string, opts *InitOptions) (*InitResult, error) {
	var opt InitOptions
	if opts != nil {
		opt = *opts
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	title = strings.TrimSpace(title)
	if title == "" || strings.ContainsAny(title, "\r\n") {
		return nil, envelope.New(envelope.Schema, "init: parameter 'title' expects a non-empty single-line string",
			"name the forest, e.g. --title \"Team knowledge\"")
	}
	summary := strings.TrimSpace(opt.Summary)
	if summary == "" {
		summary = defaultMasterSummary(title)
	}
	if err := forest.ValidateSummary(summary); err != nil {
		return nil, err
	}
	if reason := forest.HostPathTooLong(dir); reason != "" {
		return nil, envelope.New(envelope.Schema, "init: the forest folder "+reason,
			"a file system refuses such a name; choose a shorter folder")
	}
	if forest.IsForest(dir) {
		return nil, envelope.New(envelope.Schema, "init: a forest already exists here (it has _index.md)",
			"open it instead; init never overwrites a forest")
	}
	created, err := writeSkeleton(dir, title, summary, opt.Now().Format(time.DateOnly))
	if err != nil {
		return nil, errors.Join(err, removeAll(created))
	}
	if gitDir := filepath.Join(dir, ".git"); !exists(gitDir) {
		created = append(created, gitDir)
	}
	sha, err := commitSkeleton(ctx, dir, title, opt.Now)
	if err != nil {
		return nil, errors.Join(err, removeAll(created))
	}
	return &InitResult{Root: dir, Title: title, Commit: sha}, nil
}

func defaultMasterSummary(title string) string {
	s := fmt.Sprintf("Master branch of %s: a new forest with no branches or notes yet.", title)
	if forest.ValidateSummary(s) != nil {
		s = "Master branch of a new forest with no branches or notes yet."
	}
	return s
}

// writeSkeleton writes the three init files and returns what it created,
// so a failure can take exactly those back.
func writeSkeleton(dir, title, summary, today string) ([]string, error) {
	var created []string
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		created = append(created, dir)
	}
	master := &forest.Node{ID: forest.RootIndexID, Front: forest.NewFrontmatter(
		forest.Field{Key: "id", Value: forest.RootIndexID},
		forest.Field{Key: "type", Value: "branch"},
		forest.Field{Key: "title", Value: title},
		forest.Field{Key: "summary", Value: summary},
		forest.Field{Key: "coverage", Value: forest.FormatCoverage(0, 0)},
		forest.Field{Key: "created", Value: today},
		forest.Field{Key: "updated", Value: today},
	), Body: forest.MasterBody(title, summary)}
	schema := &forest.Node{ID: forest.SchemaID, Front: forest.NewFrontmatter(
		forest.Field{Key: "id", Value: forest.SchemaID},
		forest.Field{Key: "type", Value: "note"},
		forest.Field{Key: "title", Value: "Forest dialect"},
		forest.Field{Key: "summary", Value: schemaSummary},
		forest.Field{Key: "created", Value: today},
		forest.Field{Key: "updated", Value: today},
	), Body: forest.DefaultSchemaBody()}
	files := []struct {
		rel  string
		data []byte
	}{
		{"_index.md", master.Bytes()},
		{"_meta/schema.md", schema.Bytes()},
		{".gitignore", []byte(forest.GitignoreContent)},
	}
	metaDir := filepath.Join(dir, "_meta")
	if _, err := os.Stat(metaDir); errors.Is(err, os.ErrNotExist) {
		if err := os.Mkdir(metaDir, 0o755); err != nil {
			return created, err
		}
		created = append(created, metaDir)
	}
	for _, f := range files {
		path := filepath.Join(dir, filepath.FromSlash(f.rel))
		if exists(path) {
			return created, envelope.New(envelope.Schema,
				"init: "+f.rel+" already exists", "init writes into an empty directory or one without a forest")
		}
		if err := os.WriteFile(path, f.data, 0o644); err != nil {
			return created, err
		}
		created = append(created, path)
	}
	return created, nil
}

// commitSkeleton creates the forest's own repository unless dir already is
// the top level of one, then commits the skeleton.
func commitSkeleton(ctx context.Context, dir, title string, now func() time.Time) (string, error) {
	repo, err := gitops.Init(dir)
	if err != nil {
		return "", err
	}
	return repo.CommitInit(ctx, title, gitops.Options{When: now()})
}

// removeAll deletes created paths in reverse order (files before their
// directories). A directory that Init created goes with its contents.
func removeAll(created []string) error {
	var errs []error
	for i := len(created) - 1; i >= 0; i-- {
		if err := os.RemoveAll(created[i]); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
