package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"path"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcpvec/mcpvec/server/oauth"
)

func runAuthUsers(ctx context.Context, e *env, args []string) error {
	fs, lf := libFlagSet("auth users", "[flags]", e)
	asJSON := fs.Bool("json", false, "print JSON")
	if _, err := parseFlags(fs, args, e); err != nil {
		return err
	}
	return withAuth(ctx, e, lf, append([]string{"users"}, args...), false, func(st authStore) error {
		us, err := oauth.Users(st)
		if err != nil {
			return err
		}
		if *asJSON {
			if us == nil {
				us = []oauth.User{}
			}
			return writeJSON(e.stdout, us)
		}
		printUsers(e.stdout, us, libraryName("", st.db.Path()))
		return nil
	})
}

// printUsers prints us as a table; single names the library of resources
// at the plain paths (a serve of one library).
func printUsers(w io.Writer, us []oauth.User, single string) {
	if len(us) == 0 {
		fmt.Fprintln(w, "Nobody holds a grant.")
		return
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "USER\tLIBRARIES\tCLIENTS\tGRANTS\tLAST USE\tKEY")
	for _, u := range us {
		var libs []string
		for _, r := range u.Resources {
			libs = addName(libs, resourceLibrary(r, single))
		}
		last := "never"
		if !u.LastUsed.IsZero() {
			last = u.LastUsed.Local().Format(time.DateTime)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", u.Label, strings.Join(libs, ","), strings.Join(u.Clients, ","), u.Grants, last, u.Key)
	}
	tw.Flush()
}

func addName(list []string, v string) []string {
	for _, x := range list {
		if x == v {
			return list
		}
	}
	return append(list, v)
}

// resourceLibrary names the library of an OAuth resource URL as a serve
// of several libraries lays them out (/NAME[/SECRET]/mcp or /sse): NAME,
// or single for the library of a serve of one (/mcp, /SECRET/mcp).
func resourceLibrary(resource, single string) string {
	u, err := url.Parse(resource)
	if err != nil {
		return resource
	}
	p := strings.TrimSuffix(strings.TrimSuffix(u.Path, "/mcp"), "/sse")
	if strings.HasPrefix(path.Base(p), "k-") {
		p = path.Dir(p)
	}
	if p = strings.Trim(p, "/"); p == "" || p == "." {
		return single
	}
	return p
}
