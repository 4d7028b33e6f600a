// SPDX-License-Identifier: Apache-2.0

package benchtable_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/monkeyllm/vine/internal/benchtable"
)

func Example() {
	out := `BenchmarkScale/n=1000/look/leaf-2  9000  120000 ns/op  0.110 p50-ms  0.300 p95-ms
BenchmarkScale/n=1000/look/leaf-2  9100  118000 ns/op  0.105 p50-ms  0.250 p95-ms
BenchmarkScale/n=1000/look/leaf-2  8900  125000 ns/op  0.115 p50-ms  2.900 p95-ms
`
	results, err := benchtable.Parse(strings.NewReader(out))
	if err != nil {
		panic(err)
	}
	targets, err := benchtable.ParseTargets(strings.NewReader("^BenchmarkScale/.*/look/ p95-ms 2\n"))
	if err != nil {
		panic(err)
	}
	missed, err := benchtable.Write(os.Stdout, benchtable.Summarize(results), targets)
	if err != nil {
		panic(err)
	}
	fmt.Println("missed:", missed)
	// Output:
	// benchmark                        runs  time/op  p50-ms  p95-ms  target
	// BenchmarkScale/n=1000/look/leaf  3     120.0µs  0.1100  0.3000  p95-ms<2 ok
	// missed: 0
}
