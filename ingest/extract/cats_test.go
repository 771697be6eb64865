package extract

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var writeCats = flag.Bool("write-cats", false, "regenerate ../../testdata/cats.pdf, the demo document")

// catsPath is the project's sample PDF, the demo file of the README.
var catsPath = filepath.Join("..", "..", "testdata", "cats.pdf")

// catsPages is the text of testdata/cats.pdf: one slice of paragraphs per
// page, wrapped to lines when the PDF is written.
var catsPages = [][]string{
	{
		"# Are Cats Attached to Their Homes?",
		"A short field guide to feline territory, moving house and the bond between cats and people.",
		"## 1. The territorial cat",
		"Domestic cats descend from the African wildcat, a solitary hunter that defends a home range. That ancestry still shapes the house cat: a cat's sense of safety is tied to a place it knows, with familiar smells, hiding spots, resting places and routes between them.",
		"A cat marks its territory by rubbing its cheeks on furniture and doorframes, by scratching, and sometimes by spraying. These scent marks are messages to itself as much as to other cats: they say that this place is known and safe. When the marks fade or are washed away, many cats become restless until they have renewed them.",
		"So, are cats attached to their homes? Yes. Most cats are strongly attached to their home territory, and for many of them the place matters as much as the people who live there.",
	},
	{
		"## 2. Attached to places, or to people?",
		"The old saying is that dogs love people and cats love places. Research gives a more balanced answer. In attachment tests modelled on those used with human infants, most kittens and adult cats showed a secure bond with their owner: they greeted the owner after a short separation and then went back to exploring the room.",
		"Cats therefore bond with people as well as with places. Their attachment to the house is about security and routine; their attachment to their people is social. A cat that is fed, played with and comforted by one person will often follow that person from room to room.",
		"What a cat dislikes is losing control of its territory. Strange visitors, a new pet, building work or a rearranged living room can all make a cat hide, stop eating or mark indoors, even when its favourite person is at home.",
	},
	{
		"## 3. Moving house with a cat",
		"Because of this territorial bond, a move is one of the most stressful events in a cat's life. Stories of cats walking many miles back to a former home are rare but real, and a newly moved cat that is let outside too soon may try to return to its old territory.",
		"Good practice when moving: keep the cat in one quiet room with its bed, litter tray, food, water and an unwashed blanket that smells of the old home. Rub a soft cloth on the cat's cheeks and wipe it on furniture at cat height, so the new rooms carry familiar scent. Open the rest of the house gradually, one room at a time.",
		"Keep an outdoor cat indoors for at least two to three weeks after the move. When it does go out, let it out before a meal, so that hunger brings it back, and stay with it for the first trips.",
		"If you move only a short distance, tell the new owners of your old home and ask them not to feed your cat if it turns up there.",
	},
	{
		"## 4. Signs of a secure, settled cat",
		"A cat that feels at home sleeps in open places, often on its back, eats normally and explores calmly. It greets its people with a raised tail, slow blinks and head rubs, and it uses scratching posts rather than doorframes.",
		"A cat that has not settled hides for long periods, eats little, over-grooms, or marks with urine. Most cats adjust to a new home within a few weeks; older cats and cats that have moved several times may need longer, and patience works better than coaxing.",
		"## Summary",
		"Cats are attached to their homes: their territory is their source of safety, and changes to it are stressful. They are also attached to their people. Keeping routines, scent and safe hiding places constant helps a cat through any change, including moving house.",
	},
}

// catsPDF builds cats.pdf from catsPages, wrapping paragraphs at 88
// characters with a blank line between them.
func catsPDF(tb testing.TB) []byte {
	pages := make([][]string, len(catsPages))
	for i, paras := range catsPages {
		for j, p := range paras {
			if j > 0 {
				pages[i] = append(pages[i], "")
			}
			p = strings.TrimLeft(p, "# ")
			pages[i] = append(pages[i], wrap(p, 88)...)
		}
	}
	return testPDF{Title: "Are Cats Attached to Their Homes?", Pages: pages}.Bytes(tb)
}

func wrap(p string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(p) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}

// TestCatsPDF checks the committed demo document: its title, its pages and
// the passage that answers the demo query on the right page.
func TestCatsPDF(t *testing.T) {
	if *writeCats {
		if err := os.WriteFile(catsPath, catsPDF(t), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(catsPath)
	if err != nil {
		t.Fatalf("%v (regenerate with: go test -run TestCatsPDF -write-cats)", err)
	}
	doc := mustExtract(t, "cats.pdf", data)
	if got, want := doc.Title, "Are Cats Attached to Their Homes?"; got != want {
		t.Errorf("title = %q, want %q", got, want)
	}
	if got, want := len(doc.Pages), len(catsPages); got != want {
		t.Fatalf("pages = %d, want %d", got, want)
	}
	flat := strings.Join(strings.Fields(doc.Pages[0]), " ")
	if want := "Most cats are strongly attached to their home territory"; !strings.Contains(flat, want) {
		t.Errorf("page 1 lacks %q:\n%s", want, doc.Pages[0])
	}
	if !strings.HasPrefix(doc.Pages[2], "3. Moving house with a cat") {
		t.Errorf("page 3 starts %.40q", doc.Pages[2])
	}
}
