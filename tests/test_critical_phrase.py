"""Hand-checked critical phrases on real BLiMP pairs.

20 pairs per study phenomenon, drawn at random (Python `random.Random(2024)`, cycling over the phenomenon's
UIDs) and looked up here by UID and pairID; a few deliberately hard pairs follow. The expected phrases were
written by hand from the sentences (shown in the comments) following the definition in nbs/grokking/10_exposure.ipynb:
the smallest word span of the good sentence holding every differing word plus the context word(s).
"""
import gzip, json
from functools import lru_cache

import pytest

from grok_nb.core import data_dir
from grok_nb.exposure import critical_phrase, critical_phrases, NoContrast

BLIMP = data_dir("blimp")


@lru_cache(maxsize=None)
def paradigm(uid):
    with gzip.open(BLIMP / f"{uid}.jsonl.gz", "rt", encoding="utf-8") as f:
        return {r["pairID"]: r for r in map(json.loads, f)}


DET = [
    ("determiner_noun_agreement_1", "481", "those books"),                     # Karen hadn't loved those books / *book
    ("determiner_noun_agreement_2", "186", "that school"),                     # Alice hasn't astounded that / *those school
    ("determiner_noun_agreement_irregular_1", "745", "these mice"),            # The pictures looked like these mice / *mouse
    ("determiner_noun_agreement_irregular_2", "592", "that analysis"),         # Melanie scans that / *those analysis
    ("determiner_noun_agreement_with_adj_2", "311", "those smart students"),   # George is helping those / *that smart students
    ("determiner_noun_agreement_with_adj_irregular_1", "205", "those lost women"),
    ("determiner_noun_agreement_with_adj_irregular_2", "908", "that lucky man"),
    ("determiner_noun_agreement_with_adjective_1", "740", "that new museum"),   # That cilantro astounds that new museum / *museums
    ("determiner_noun_agreement_1", "419", "those adults"),
    ("determiner_noun_agreement_2", "775", "this cashier"),
    ("determiner_noun_agreement_irregular_1", "733", "that paralysis"),
    ("determiner_noun_agreement_irregular_2", "776", "those oases"),
    ("determiner_noun_agreement_with_adj_2", "271", "that standing patient"),  # -ing adjective inside the NP
    ("determiner_noun_agreement_with_adj_irregular_1", "545", "that troubled woman"),
    ("determiner_noun_agreement_with_adj_irregular_2", "251", "this happy child"),
    ("determiner_noun_agreement_with_adjective_1", "651", "those good restaurants"),
    ("determiner_noun_agreement_1", "832", "this library"),
    ("determiner_noun_agreement_2", "752", "these actors"),
    ("determiner_noun_agreement_irregular_1", "510", "that analysis"),
    ("determiner_noun_agreement_irregular_2", "362", "this woman"),
]

SUBJECT_VERB = [
    ("distractor_agreement_relational_noun", "425", "sister of most men hasn't"),          # A sister of most men hasn't want to hide
    ("distractor_agreement_relative_clause", "539", "adult that dislikes those men isn't"), # That adult that dislikes those men isn't arriving ...
    ("regular_plural_subject_verb_agreement_1", "745", "Heidi hasn't"),
    ("regular_plural_subject_verb_agreement_2", "630", "galleries resemble"),              # The art galleries / *gallery resemble some photographs
    ("irregular_plural_subject_verb_agreement_1", "986", "men haven't"),
    ("irregular_plural_subject_verb_agreement_2", "223", "man observes"),                  # The man / *men observes Sandra
    ("distractor_agreement_relational_noun", "316", "article about current events has"),
    ("distractor_agreement_relative_clause", "556", "teenagers that sounded like Joseph don't"),
    ("regular_plural_subject_verb_agreement_1", "720", "Suzanne scares"),
    ("regular_plural_subject_verb_agreement_2", "338", "cups weren't"),
    ("irregular_plural_subject_verb_agreement_1", "531", "basis worries"),
    ("irregular_plural_subject_verb_agreement_2", "76", "man escapes"),
    ("distractor_agreement_relational_noun", "748", "pamphlet about current events doesn't"),
    ("distractor_agreement_relative_clause", "792", "Adults who would discuss Samantha have"),
    ("regular_plural_subject_verb_agreement_1", "887", "boys aren't"),
    ("regular_plural_subject_verb_agreement_2", "211", "school hasn't"),
    ("irregular_plural_subject_verb_agreement_1", "705", "hypothesis embarrasses"),
    ("irregular_plural_subject_verb_agreement_2", "770", "people haven't"),
    ("distractor_agreement_relational_noun", "745", "pamphlets about music have"),
    ("distractor_agreement_relative_clause", "479", "committees that will respect Charles induce"),
]

ANAPHOR = [(("anaphor_number_agreement", pid, phrase)) for pid, phrase in [
    ("946", "dancers distract themselves"),
    ("726", "Craig wasn't attacking himself"),
    ("851", "Women concealed themselves"),
    ("892", "guests praise themselves"),
    ("668", "girls hadn't hidden themselves"),       # A lot of girls hadn't hidden themselves
    ("151", "customers hide themselves"),
    ("544", "Carolyn isn't visiting herself"),
    ("217", "women talk about themselves"),
    ("888", "teachers had talked about themselves"),
    ("421", "Ann isn't visiting herself"),
    ("59", "students don't confuse themselves"),
    ("789", "Candice hadn't thought about herself"),
    ("357", "Lutherans know themselves"),
    ("643", "girls knew themselves"),
    ("426", "Homer astounded himself"),
    ("477", "Rebecca shouldn't worry herself"),
    ("127", "doctors help themselves"),
    ("742", "Claire wasn't talking to herself"),
    ("761", "Jacqueline disgusted herself"),
    ("142", "patients shocked themselves"),
]]

THERE = [
    ("existential_there_quantifiers_1", "781", "There were some libraries"),    # There were some / *all libraries admiring William
    ("existential_there_quantifiers_2", "334", "Most essays were there"),       # Most essays were there ... / *There were most essays ...
    ("existential_there_object_raising", "399", "expects there"),              # Deanna expects / *enticed there to be ...
    ("existential_there_subject_raising", "338", "There isn't sure"),          # There isn't sure / *happy to be ...
    ("existential_there_quantifiers_1", "353", "There are few birds"),
    ("existential_there_quantifiers_2", "812", "All computers were there"),
    ("existential_there_object_raising", "205", "anticipate there"),
    ("existential_there_subject_raising", "333", "There aren't likely"),
    ("existential_there_quantifiers_1", "437", "There were some trucks"),
    ("existential_there_quantifiers_2", "424", "Each car is there"),
    ("existential_there_object_raising", "324", "considered there"),
    ("existential_there_subject_raising", "581", "There happened"),
    ("existential_there_quantifiers_1", "219", "There aren't many stairs"),
    ("existential_there_quantifiers_2", "926", "Each dog is there"),
    ("existential_there_object_raising", "888", "declared there"),
    ("existential_there_subject_raising", "416", "There does appear"),
    ("existential_there_quantifiers_1", "234", "There wasn't a cousin"),       # There wasn't a / *every cousin of Samantha wondering ...
    ("existential_there_quantifiers_2", "209", "Most scarves aren't there"),
    ("existential_there_object_raising", "41", "needed there"),
    ("existential_there_subject_raising", "767", "There is sure"),
]

PARTICIPLE = [
    ("irregular_past_participle_verbs", "230", "people hid"),                  # Those people hid / *hidden away
    ("irregular_past_participle_adjectives", "780", "worn gloves"),            # The worn / *wore gloves are out in the open
    ("irregular_past_participle_verbs", "19", "Susan knew"),
    ("irregular_past_participle_adjectives", "994", "known student"),
    ("irregular_past_participle_verbs", "886", "Clyde hid"),
    ("irregular_past_participle_adjectives", "265", "taken sketch"),
    ("irregular_past_participle_verbs", "864", "waitresses wrote"),
    ("irregular_past_participle_adjectives", "517", "known lady"),
    ("irregular_past_participle_verbs", "326", "Amelia got"),
    ("irregular_past_participle_adjectives", "790", "taken cakes"),
    ("irregular_past_participle_verbs", "983", "Colleen broke"),
    ("irregular_past_participle_adjectives", "583", "worn scarves"),
    ("irregular_past_participle_verbs", "823", "Edward hid"),
    ("irregular_past_participle_adjectives", "722", "forgotten movie"),
    ("irregular_past_participle_verbs", "431", "Christina wore"),
    ("irregular_past_participle_adjectives", "628", "taken horses"),
    ("irregular_past_participle_verbs", "114", "Carla broke"),
    ("irregular_past_participle_adjectives", "339", "broken plate"),
    ("irregular_past_participle_verbs", "871", "Daniel ate"),
    ("irregular_past_participle_adjectives", "668", "known patient"),
]

# deliberately hard cases: compound nouns, BLiMP's 'out in the open', 'A lot of', two-word diffs, 'like' as a verb
HARD = [
    ("determiner_noun_agreement_1", "1", "that grocery store"),
    ("determiner_noun_agreement_2", "1", "these art galleries"),
    ("determiner_noun_agreement_with_adj_2", "10", "that out in the open drawing"),   # the noun ends in -ing
    ("determiner_noun_agreement_with_adj_irregular_1", "41", "that out in the open oasis"),
    ("distractor_agreement_relational_noun", "2", "article about the Borgias has"),
    ("distractor_agreement_relative_clause", "867", "customers who weren't boycotting Spain have"),
    ("regular_plural_subject_verb_agreement_2", "83", "campuses were"),
    ("regular_plural_subject_verb_agreement_2", "409", "galleries alarm"),
    ("anaphor_number_agreement", "202", "Impressionists like themselves"),
    ("existential_there_subject_raising", "807", "There turns out"),                 # There turns out / *needs to be
    ("existential_there_quantifiers_1", "443", "There isn't a newspaper article"),
    ("existential_there_quantifiers_1", "214", "There wasn't a high school"),
    ("existential_there_object_raising", "64", "wanted there"),
    ("wh_island", "0", "they"),                                                       # no rule: the differing word alone
]

CASES = {"determiner_noun": DET, "subject_verb": SUBJECT_VERB, "anaphor": ANAPHOR, "there": THERE, "participle": PARTICIPLE}


@pytest.mark.parametrize("phenomenon", sorted(CASES))
def test_twenty_per_phenomenon(phenomenon):
    cases = CASES[phenomenon]
    assert len(cases) == 20 and len({(u, p) for u, p, _ in cases}) == 20
    table = critical_phrases([paradigm(u)[p] for u, p, _ in cases])
    wrong = [(u, p, want, got) for (u, p, want), got in zip(cases, table.phrase) if got != want]
    assert not wrong, wrong
    assert (table.status == "ok").all()


def test_hard_cases():
    table = critical_phrases([paradigm(u)[p] for u, p, _ in HARD])
    wrong = [(u, p, want, got) for (u, p, want), got in zip(HARD, table.phrase) if got != want]
    assert not wrong, wrong
    assert list(table.status) == ["ok"] * (len(HARD) - 1) + ["diff_only"]


def test_context_words():
    # the context is the head noun of the subject, not the attractor
    r = paradigm("distractor_agreement_relational_noun")["425"]
    cp = critical_phrase(r["sentence_good"], r["sentence_bad"], r["UID"])
    assert [cp.words[i] for i in cp.critical_idx] == ["hasn't"] and [cp.words[i] for i in cp.context_idx] == ["sister"]
    r = paradigm("existential_there_quantifiers_1")["781"]
    cp = critical_phrase(r["sentence_good"], r["sentence_bad"], r["UID"])
    assert [cp.words[i] for i in cp.critical_idx] == ["some"] and [cp.words[i] for i in cp.context_idx] == ["There", "libraries"]
    r = paradigm("determiner_noun_agreement_with_adj_2")["311"]
    cp = critical_phrase(r["sentence_good"], r["sentence_bad"], r["UID"])
    assert cp.bad_phrase == "that smart students" and r["sentence_bad"][slice(*cp.bad_char_span)] == cp.bad_phrase


def test_identical_pairs_are_counted_skips():
    pairs = [paradigm("passive_1")[p] for p in ("324", "810", "0")] + [paradigm("principle_A_case_2")["105"]]
    with pytest.raises(NoContrast):
        critical_phrase(pairs[0]["sentence_good"], pairs[0]["sentence_bad"], "passive_1")
    table = critical_phrases(pairs)
    assert list(table.status) == ["skipped", "skipped", "diff_only", "skipped"]
    assert table.reason[0].startswith("critical_phrase: good and bad sentences have the same words")
