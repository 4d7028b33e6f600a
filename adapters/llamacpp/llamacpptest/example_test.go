// SPDX-License-Identifier: Apache-2.0

package llamacpptest_test

import (
	"context"
	"fmt"

	"github.com/monkeyllm/vine/adapters/llamacpp"
	"github.com/monkeyllm/vine/adapters/llamacpp/llamacpptest"
	"github.com/monkeyllm/vine/model"
)

// A client under test talks to the fake server as to llama.cpp; the
// server keeps what it was asked.
func Example() {
	srv := llamacpptest.NewServer(llamacpptest.Reply("Tides rise twice a day."))
	defer srv.Close()
	c, err := llamacpp.New(srv.URL+"/v1", "fake-model")
	if err != nil {
		panic(err)
	}
	text, err := c.Chat(context.Background(), []model.Message{{Role: "user", Content: "How often do tides rise?"}}, 64)
	if err != nil {
		panic(err)
	}
	fmt.Println(text)
	fmt.Println(srv.Requests()[0].Messages[0].Content)
	// Output:
	// Tides rise twice a day.
	// How often do tides rise?
}
