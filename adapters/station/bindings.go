// SPDX-License-Identifier: Apache-2.0

package station

import (
	"context"
	"path/filepath"
	"sync"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/llamacpp"
	"github.com/monkeyllm/vine/adapters/station/providers"
	"github.com/monkeyllm/vine/answer"
	"github.com/monkeyllm/vine/gardener"
)

// How model bindings (09 §8) reach the engine: a forest's embed binding
// is its Canopy embedder on every instance (vine.Options.Opened, and
// again on a change), its answer binding the answer composite's model
// (answer.Options.ModelFor), its ingest and vision bindings the curator
// and image describer of its ingest jobs and recurate
// (rest.Options.GardenerFor). A binding that cannot be used is logged
// and the act goes on as if the role were unbound.

// bindAnswer builds the Answerer the host binds: through AnswerWith
// with the forests' bindings, else through Answer.
func (s *Server) bindAnswer() (*answer.Answerer, error) {
	if s.opt.AnswerWith != nil {
		return s.opt.AnswerWith(answer.Options{StoreSettings: s.StoreSettings, ModelFor: s.answerModel, Prompter: s.extPrompter})
	}
	return s.opt.Answer(s.StoreSettings)
}

// bound is the client of forest's binding of role, with the binding;
// found is false when the role is unbound there or its binding cannot be
// used (logged: the act that needed it falls back as if unbound).
func (s *Server) bound(ctx context.Context, forest, role string) (*llamacpp.Client, providers.Model, bool) {
	if s.models == nil {
		return nil, providers.Model{}, false
	}
	m, found, err := s.models.Resolve(ctx, forest, role)
	if err == nil && found {
		var client *llamacpp.Client
		if client, err = s.clients.get(m); err == nil {
			return client, m, true
		}
	}
	if err != nil {
		s.log.Warn("station: a model binding cannot be used", "forest", forest, "role", role, "err", err)
	}
	return nil, m, false
}

// answerModel is the model of v's answer binding, for the Answerer
// (answer.Options.ModelFor); found is false when the forest has none.
func (s *Server) answerModel(ctx context.Context, v *vine.Vine) (answer.Model, answer.Binding, bool) {
	client, m, found := s.bound(ctx, filepath.Base(v.Dir()), providers.RoleAnswer)
	if !found {
		return nil, answer.Binding{}, false
	}
	reasoning := "off"
	if m.Reasoning {
		reasoning = "on"
	}
	return client, answer.Binding{Provider: m.Provider, Model: m.Model, MaxTokens: m.MaxTokens, Reasoning: reasoning}, true
}

// modelClients keeps one client per endpoint, model and key, so the
// connections of a binding are reused across calls.
type modelClients struct{ m sync.Map }

func (c *modelClients) get(m providers.Model) (*llamacpp.Client, error) {
	key := m.Endpoint + "\x00" + m.Model + "\x00" + m.APIKey
	if got, ok := c.m.Load(key); ok {
		return got.(*llamacpp.Client), nil
	}
	var opts []llamacpp.Option
	if m.APIKey != "" {
		opts = append(opts, llamacpp.WithAPIKey(m.APIKey))
	}
	client, err := llamacpp.New(m.Endpoint, m.Model, opts...)
	if err != nil {
		return nil, err
	}
	got, _ := c.m.LoadOrStore(key, client)
	return got.(*llamacpp.Client), nil
}

// gauntletSetting is the forest_settings key that switches the Gauntlet.
const gauntletSetting = "gauntlet"

// gauntletSwitch is the Station's per-forest Gauntlet switch for the
// REST canopy route, kept in forest_settings (default on).
type gauntletSwitch struct{ s *Server }

func (g gauntletSwitch) GauntletEnabled(ctx context.Context, forest string) (bool, error) {
	on := true
	_, err := g.s.reg.Setting(ctx, forest, gauntletSetting, &on)
	return on, err
}

// SetGauntlet stores the switch and applies it to the forest's instances.
func (g gauntletSwitch) SetGauntlet(ctx context.Context, forest string, on bool) error {
	if err := g.s.reg.SetSetting(ctx, forest, gauntletSetting, on); err != nil {
		return err
	}
	g.s.reattach(ctx, forest)
	return nil
}

// attachModels gives a forest opening in one of the Station's registries
// the embedder its embed binding names (vine.Options.Opened); none when
// it is unbound, unreadable, or the forest's gauntlet setting is off.
func (s *Server) attachModels(v *vine.Vine) {
	v.SetEmbedder(nil)
	ctx := context.Background()
	forest := filepath.Base(v.Dir())
	s.attachRanker(v)
	on := true
	if _, err := s.reg.Setting(ctx, forest, gauntletSetting, &on); err != nil || !on {
		return
	}
	if emb, _, found := s.bound(ctx, forest, providers.RoleEmbed); found {
		v.SetEmbedder(emb)
	}
}

// gardenerFor adds forest's ingest and vision bindings to the Gardener
// options of one ingest batch or recurate (rest.Options.GardenerFor):
// the ingest model curates, the vision model describes images.
func (s *Server) gardenerFor(ctx context.Context, forest string, opt *gardener.Options) {
	convs, hooks := s.extGardener(ctx, forest)
	opt.Converters = append(opt.Converters, convs...)
	opt.Hooks = append(opt.Hooks, hooks...) // after the host's own (11 §13.5)
	if chat, m, found := s.bound(ctx, forest, providers.RoleIngest); found {
		opt.Curator = gardener.NewModelCurator(chat, gardener.WithReplyTokens(m.MaxTokens))
	}
	if vision, m, found := s.bound(ctx, forest, providers.RoleVision); found {
		opt.Converters = append(opt.Converters, gardener.NewMediaDescriber(vision, &gardener.DescriberOptions{MaxTokens: m.MaxTokens}))
	}
}

// reattach applies forest's current bindings to its writable instance
// and drops its read-only ones, which reopen with them.
func (s *Server) reattach(ctx context.Context, forest string) {
	if v, err := s.forests.Forest(ctx, forest); err == nil {
		s.attachModels(v)
	}
	if err := s.api.Reopen(forest); err != nil {
		s.log.Warn("station: reopening read-only instances after a binding change", "forest", forest, "err", err)
	}
}

func (s *Server) reattachAll(ctx context.Context) {
	for _, id := range s.forestIDs() {
		s.reattach(ctx, id)
	}
}
