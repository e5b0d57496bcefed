package logship

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/heraldhq/herald/host/internal/traffic"
)

// repo is the repository root, from this package's directory.
var repo = filepath.Join("..", "..", "..")

// The WordPress plugin's crawler list is Herald's crawler table, token for
// token, so the plugin reports every request Herald would count.
func TestWordPressPluginCrawlerList(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repo, "integrations", "wordpress", "herald", "includes", "crawlers.php"))
	if err != nil {
		t.Fatal(err)
	}
	body := string(b)
	body = body[strings.Index(body, "$tokens = array("):]
	body = body[:strings.Index(body, ");")]
	var got []string
	for _, m := range regexp.MustCompile(`'([^']+)'`).FindAllStringSubmatch(body, -1) {
		got = append(got, m[1])
	}
	var want []string
	for _, c := range traffic.Crawlers {
		want = append(want, c.Token)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("the plugin's crawler tokens\n%v\nare not Herald's table\n%v", got, want)
	}
}
