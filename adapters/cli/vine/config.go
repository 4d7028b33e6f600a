// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/urfave/cli/v3"
)

// configEnv names the config file, overriding the default location; set
// to "" (or "off") it turns the file off.
const configEnv = "VINE_CONFIG"

// config is the optional config file: flag defaults, in YAML.
//
//	forest: ~/kb            # every command's --forest (VINE_FOREST beats it)
//	json: false             # any top-level key is the flag of that name, for every command that has it
//	commands:               # flags for one command; beats the top level
//	  serve:
//	    http: 127.0.0.1:8080
//	    keys: ~/.config/vine/keys.yaml
//	  keys add:
//	    expires: 30d
//
// A flag on the command line beats the environment, which beats the file.
// A string value starting with "~/" is under the home directory. A list
// sets a repeatable flag once per item.
type config struct {
	path     string
	flags    map[string]any            // top level, without "commands"
	commands map[string]map[string]any // by command path: "serve", "keys add"
}

// configPath is where the config file is read from: $VINE_CONFIG, else
// vine/config.yaml under the user's config directory ($XDG_CONFIG_HOME,
// or ~/.config, on Linux). "" means no file.
func configPath() string {
	if p, set := os.LookupEnv(configEnv); set {
		if p == "off" {
			return ""
		}
		return expandHome(p)
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "vine", "config.yaml")
}

// loadConfig reads the config file; an absent file is an empty config,
// while one that does not parse is an error naming it.
func loadConfig(path string) (*config, error) {
	c := &config{path: path, flags: map[string]any{}, commands: map[string]map[string]any{}}
	if path == "" {
		return c, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("config file: %w", err)
	}
	var raw map[string]any
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("config file %s: %w", path, err)
	}
	for k, v := range raw {
		if k != "commands" {
			c.flags[k] = v
			continue
		}
		cmds, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("config file %s: commands: expected a mapping of command names to flags", path)
		}
		for name, fl := range cmds {
			m, ok := fl.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("config file %s: commands.%s: expected a mapping of flag names to values", path, name)
			}
			c.commands[strings.Join(strings.Fields(name), " ")] = m
		}
	}
	return c, nil
}

// value is the configured value of flag for the command at path
// ("canopy build"): the command's section first, then its parents'
// ("canopy"), then the top level.
func (c *config) value(path, flag string) (any, bool) {
	for parts := strings.Fields(path); len(parts) > 0; parts = parts[:len(parts)-1] {
		if v, ok := c.commands[strings.Join(parts, " ")][flag]; ok {
			return v, true
		}
	}
	v, ok := c.flags[flag]
	return v, ok
}

// check refuses a section for a command that does not exist, so a typo
// in the file is not silently ignored.
func (c *config) check(root *cli.Command) error {
	for name := range c.commands {
		cmd := root
		for _, part := range strings.Fields(name) {
			if cmd = cmd.Command(part); cmd == nil {
				return fmt.Errorf("config file %s: commands: no command %q", c.path, name)
			}
		}
	}
	return nil
}

// apply sets every flag of cmd (its own, and those a parent command
// shares with it) that neither the command line nor the environment set
// from the file. --forest is left to forestDir, which orders it after
// VINE_FOREST.
func (c *config) apply(cmd *cli.Command) error {
	path := commandPath(cmd)
	for _, owner := range cmd.Lineage() {
		if owner == cmd.Root() {
			break
		}
		for _, f := range owner.Flags {
			if err := c.applyFlag(cmd, path, f.Names()[0]); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *config) applyFlag(cmd *cli.Command, path, name string) error {
	if name == "forest" || cmd.IsSet(name) {
		return nil
	}
	v, ok := c.value(path, name)
	if !ok {
		return nil
	}
	items, isList := v.([]any)
	if !isList {
		items = []any{v}
	}
	for _, it := range items {
		if err := cmd.Set(name, configString(it)); err != nil {
			return fmt.Errorf("config file %s: %s: %w", c.path, name, err)
		}
	}
	return nil
}

// configString is a YAML scalar as a command-line value.
func configString(v any) string {
	s := fmt.Sprint(v)
	if str, ok := v.(string); ok {
		s = expandHome(str)
	}
	return s
}

// configKey holds the run's config in the root command's Metadata.
const configKey = "config"

// loadedConfig is the config of the run c belongs to.
func loadedConfig(c *cli.Command) *config {
	if cfg, ok := c.Root().Metadata[configKey].(*config); ok {
		return cfg
	}
	return &config{}
}

// commandPath is c's name below the root: "serve", "keys add".
func commandPath(c *cli.Command) string {
	return strings.TrimPrefix(c.FullName(), "vine ")
}

// withConfig makes every leaf command read its flag defaults from cfg
// before it runs; a file that did not load (loadErr) stops the command
// there, while help and version, which read no config, still work.
func withConfig(c *cli.Command, cfg *config, loadErr error) {
	if c.Name == "help" || c.Name == "version" {
		return
	}
	if c.Action != nil {
		before := c.Before
		c.Before = func(ctx context.Context, cmd *cli.Command) (context.Context, error) {
			if loadErr != nil {
				return ctx, loadErr
			}
			if err := cfg.check(cmd.Root()); err != nil {
				return ctx, err
			}
			if err := cfg.apply(cmd); err != nil {
				return ctx, err
			}
			if before != nil {
				return before(ctx, cmd)
			}
			return ctx, nil
		}
	}
	for _, s := range c.Commands {
		withConfig(s, cfg, loadErr)
	}
}

// expandHome turns a leading "~" or "~/" into the home directory: a
// path in a config file or after "--forest=" never passed a shell.
func expandHome(p string) string {
	if p != "~" && !strings.HasPrefix(p, "~/") && !strings.HasPrefix(p, `~\`) {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return p
	}
	return filepath.Join(home, p[1:])
}
