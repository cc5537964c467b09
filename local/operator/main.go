// Command operator grants or revokes the operator role (the back office,
// /v1/admin) of an account, directly on the table: the way the first
// operator is made, since no API call anyone can make grants the role.
// Once an operator exists, operators grant each other through
// PUT /v1/admin/users/{userId}/operator.
//
//	go run ./local/operator grant -email x@example.com [-reason TEXT]
//	go run ./local/operator revoke -email x@example.com [-reason TEXT]
//	go run ./local/operator recount
//
// The account is found by its email; the role and its audit entry
// (action user.operator, actor "cli:" and the caller's name: $USER, or
// the OS user's name) are written in one transaction, so the audit log
// shows who made every operator, this command included. The table:
// local/tabletarget (the running `make run`'s, an endpoint's, or with
// -aws the one in AWS with the caller's own AWS credentials).
//
// Like the back office's, the command keeps the count of working
// operators (the role, not suspended) in the role's transaction, and a
// revoke that would leave none is refused. recount writes that count on
// a table made before it was kept (one Scan of the table; nothing when
// the count exists): until then such a table refuses every revoke.
// Exit status 1 when it failed, 2 for wrong usage.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"os/user"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/bookplatform/backend/local/tabletarget"
	"github.com/bookplatform/backend/shared/audit"
	"github.com/bookplatform/backend/shared/dynamo"
	"github.com/bookplatform/backend/shared/ids"
)

func main() {
	code, err := run(os.Args[1:], os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "operator:", err)
	}
	os.Exit(code)
}

const usage = "usage: go run ./local/operator (grant | revoke) -email EMAIL [-reason TEXT] [-table NAME] [-aws]\n" +
	"       go run ./local/operator recount [-table NAME] [-aws]"

func run(args []string, stdout, stderr io.Writer) (int, error) {
	if len(args) == 0 || (args[0] != "grant" && args[0] != "revoke" && args[0] != "recount") {
		fmt.Fprintln(stderr, usage)
		return 2, nil
	}
	on := args[0] == "grant"
	fs := flag.NewFlagSet("operator "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	email := fs.String("email", "", "the account's email")
	reason := fs.String("reason", "", "why, kept on the audit entry")
	table := fs.String("table", "", "DynamoDB table (default: TABLE_NAME, or the local run's table)")
	useAWS := fs.Bool("aws", false, "with no endpoint set and no local run, work on the table in AWS")
	recount := args[0] == "recount"
	if err := fs.Parse(args[1:]); err != nil || fs.NArg() > 0 || (strings.TrimSpace(*email) == "") != recount {
		fmt.Fprintln(stderr, usage)
		return 2, nil
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	dest, err := tabletarget.Choose(*table, *useAWS)
	if err != nil {
		return 1, err
	}
	h, err := dest.Handle(ctx)
	if err != nil {
		return 1, err
	}
	store := dynamo.NewUsers(h)
	if recount {
		n, err := store.RecountOperators(ctx)
		if err != nil {
			return 1, err
		}
		if n < 0 {
			if n, err = store.OperatorCount(ctx); err != nil {
				return 1, err
			}
			fmt.Fprintf(stdout, "the table counts its operators already: %d working (table %s, %s)\n", n, dest.Table, dest.Where)
			return 0, nil
		}
		fmt.Fprintf(stdout, "%d working operators counted (table %s, %s)\n", n, dest.Table, dest.Where)
		return 0, nil
	}
	u, err := store.GetUserByEmail(ctx, strings.TrimSpace(*email))
	if err != nil {
		return 1, fmt.Errorf("account %s: %w", *email, err)
	}
	// Always a transaction, even when the role is already as asked, so
	// the entry rides it (never written apart).
	now := time.Now()
	actx, rec := audit.With(ctx, audit.Entry{
		ActorID: audit.ActorCLI + caller(), Action: audit.ActionUserOperator,
		TargetType: audit.TargetUser, TargetID: u.ID, Reason: strings.TrimSpace(*reason),
		Detail: map[string]string{"operator": strconv.FormatBool(on)},
	}, now, ids.New)
	if err := store.SetOperator(actx, u, on, now); err != nil {
		return 1, err
	}
	state := "now an operator"
	if !on {
		state = "no longer an operator"
	}
	fmt.Fprintf(stdout, "%s (%s) is %s; audit entry %s by %s (table %s, %s)\n",
		u.Email, u.ID, state, rec.Entry.ID, rec.Entry.ActorID, dest.Table, dest.Where)
	return 0, nil
}

// caller names who ran the command, for the audit entry's actor: $USER,
// else the OS user's name. (The AWS caller's ARN would name an AWS run
// better; tabletarget does not ask STS, and this keeps the command to
// the table's own credentials' one call.)
func caller() string {
	if n := strings.TrimSpace(os.Getenv("USER")); n != "" {
		return n
	}
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return "unknown"
}
