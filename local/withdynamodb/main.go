// Command withdynamodb runs a command with one in-memory DynamoDB Local
// shared by everything it starts:
//
//	go run ./local/withdynamodb go test ./...
//
// It sets TEST_DYNAMODB_ENDPOINT for the command, so every test package
// (local/testenv) uses this instance instead of starting its own JVM: one
// start of about 3 s instead of one per package, and one JVM's memory on a
// small CI machine. Tables are per test and randomly named, so packages
// running in parallel do not meet. DynamoDB Local stops when the command
// ends, or with this process however it ends.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/bookplatform/backend/local/dynamodblocal"
	"github.com/bookplatform/backend/local/testenv"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: withdynamodb command [args...]")
		os.Exit(2)
	}
	os.Exit(run(os.Args[1], os.Args[2:]))
}

func run(name string, args []string) int {
	inst, err := dynamodblocal.Start(context.Background(), dynamodblocal.Options{StartTimeout: 2 * time.Minute})
	if err != nil {
		fmt.Fprintln(os.Stderr, "withdynamodb:", err)
		return 1
	}
	defer func() {
		if err := inst.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "withdynamodb:", err)
		}
	}()

	cmd := exec.Command(name, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), testenv.EnvDynamoDBEndpoint+"="+inst.Endpoint)

	// Ctrl-C reaches the command directly (same process group); this
	// process waits for it to finish and then stops the JVM. SIGTERM sent to
	// this process alone is passed on.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)

	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "withdynamodb:", err)
		return 1
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case s := <-sigs:
			if s == syscall.SIGTERM {
				_ = cmd.Process.Signal(s)
			}
		case err := <-done:
			var exit *exec.ExitError
			switch {
			case err == nil:
				return 0
			case errors.As(err, &exit):
				if code := exit.ExitCode(); code > 0 {
					return code
				}
				return 1
			default:
				fmt.Fprintln(os.Stderr, "withdynamodb:", err)
				return 1
			}
		case <-inst.Done():
			// The tests would fail one by one with connection errors; say why.
			fmt.Fprintf(os.Stderr, "withdynamodb: DynamoDB Local exited while %s ran:\n%s\n", name, inst.Output())
			_ = cmd.Process.Signal(syscall.SIGTERM)
			<-done
			return 1
		}
	}
}
