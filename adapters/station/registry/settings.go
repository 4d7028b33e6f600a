// SPDX-License-Identifier: Apache-2.0

package registry

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
)

// Setting reads forest's setting key (spec 09 §2 forest_settings, such as
// "answer_cache" or "gauntlet") into dst, a pointer for encoding/json;
// found is false, and dst untouched, when it was never set.
func (r *Registry) Setting(ctx context.Context, forest, key string, dst any) (found bool, err error) {
	var v string
	err = r.db.QueryRowContext(ctx, "SELECT value FROM forest_settings WHERE forest = ? AND key = ?", forest, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, json.Unmarshal([]byte(v), dst)
}

// SetSetting stores value as JSON under forest and key, replacing it.
func (r *Registry) SetSetting(ctx context.Context, forest, key string, value any) error {
	b, err := json.Marshal(value)
	if err != nil {
		return err
	}
	return r.immediate(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "INSERT OR REPLACE INTO forest_settings (forest, key, value) VALUES (?,?,?)",
			forest, key, string(b))
		return err
	})
}
