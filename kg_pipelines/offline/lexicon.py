"""Word lists of the offline recogniser: a curated gazetteer, relation cues, and the name casing rule.

Everything here is data plus two small pure functions; it is read once at import time.

Entity names (``display_name``)
-------------------------------
``display_name`` is ``kg_pipelines.ingestion.names.normalize_name``, the one normalizer that
extraction's post-processing applies too, so an offline name is already normalised: ordinary words
title-cased (``diet-induced obesity`` -> ``Diet-Induced Obesity``), symbols kept as written
(``SIRT1``, ``mTORC1``, ``NAD+``, ``TNF-α``), particles inside a name lower-case (``Ludwig van
Beethoven``, ``University of Vienna``).

Gazetteer entries map every synonym to one canonical form (``C. elegans`` and ``Caenorhabditis
elegans`` are both ``Caenorhabditis Elegans``; ``nicotinamide mononucleotide`` is ``NMN``), so the
same entity gets the same name in every chunk and document. Mouse-style gene symbols found by the
patterns (``Sirt6``, ``Foxo3``) are written upper-case (``SIRT6``) for the same reason.

Gazetteer format
----------------
One entry a line: ``canonical | preferred types | synonyms``. Types are tried in order against
the configured entity types (a longevity-extension type such as ``geroprotector`` first, then the
base type), falling back to ``concept``. Synonyms are separated by ``;``. Matching is
case-insensitive, hyphen/space-insensitive and whole-token; a name written with a leading ``=``
matches case-sensitively only (acronyms such as ``=WHO`` or ``=US`` that are also English words).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# -- name casing ---------------------------------------------------------------------------------
# One normalizer for extraction and the lexicon (``kg_pipelines.ingestion.names``).
from kg_pipelines.ingestion.names import EDGE_PUNCT  # noqa: E402,F401
from kg_pipelines.ingestion.names import normalize_name as display_name
from kg_pipelines.offline import cue_words
from kg_pipelines.offline import vocabulary as voc

_SPACE = re.compile(r"\s+")


# -- tokens --------------------------------------------------------------------------------------

# A token: letters/digits (Unicode, so Greek letters count), inner apostrophes, an optional
# trailing "+" (NAD+). Hyphens and slashes separate tokens; the text between two tokens (the
# "joiner") tells whether they may belong to one name.
TOKEN_RE = re.compile(r"[^\W_]+(?:['’][^\W_]+)*\+?")


def strip_possessive(word: str) -> str:
    if len(word) > 3 and word[-2:].lower() in ("'s", "’s"):
        return word[:-2]
    return word


# -- gazetteer -----------------------------------------------------------------------------------

_GAZETTEER_TEXT = """
# genes and proteins
SIRT1 | protein, gene | sirtuin 1; sirtuin-1; Sirt1
SIRT3 | protein, gene | sirtuin 3; sirtuin-3; Sirt3
SIRT6 | protein, gene | sirtuin 6; sirtuin-6; Sirt6
sirtuins | protein | sirtuin
FOXO3 | gene, protein | FOXO3a; Foxo3
FOXO1 | gene, protein | Foxo1
DAF-16 | gene, protein | daf-16
DAF-2 | gene, protein | daf-2
mTOR | protein, gene | mechanistic target of rapamycin; mammalian target of rapamycin
mTORC1 | protein | mTOR complex 1
mTORC2 | protein | mTOR complex 2
AMPK | protein | AMP-activated protein kinase
IGF-1 | protein, gene | IGF1; insulin-like growth factor 1; insulin-like growth factor-1; insulin-like growth factor I
TP53 | gene | TP53 gene
p53 | protein, gene | protein p53
p16INK4a | protein, gene | p16; p16Ink4a; p16-INK4a; p16INK4A
CDKN2A | gene | Cdkn2a
p21 | protein, gene | p21Cip1; p21CIP1; p21WAF1
APOE | gene | ApoE; apolipoprotein E
Klotho | protein, gene | alpha-klotho; α-klotho
PPARα | protein, gene | PPAR-alpha; PPAR alpha; PPARa; PPAR-α; PPARA
PPARγ | protein, gene | PPAR-gamma; PPAR gamma; PPARG; PPAR-γ
PGC-1α | protein, gene | PGC-1alpha; PGC1α; PGC-1a; PGC1a; PPARGC1A
FXR | protein, gene | farnesoid X receptor; NR1H4
S6K1 | protein, gene | S6 kinase 1; p70S6K; S6K
4E-BP1 | protein, gene | 4EBP1
NF-κB | protein | NF-kB; NF-kappaB; NF-kappa B; NFkB; NFκB
TNF-α | protein, gene | TNFα; TNF-alpha; TNF alpha; TNF; tumor necrosis factor alpha; tumour necrosis factor alpha; tumor necrosis factor
IL-6 | protein, gene | interleukin-6; interleukin 6; IL6
IL-1β | protein, gene | IL-1beta; IL1β; IL1B; interleukin-1 beta; interleukin-1β
IL-10 | protein, gene | interleukin-10; interleukin 10
insulin | protein
leptin | protein
adiponectin | protein
GLP-1 | protein | glucagon-like peptide-1; glucagon-like peptide 1
NRF2 | protein, gene | Nrf2; NFE2L2
TERT | gene, protein | telomerase reverse transcriptase
telomerase | protein
# compounds
rapamycin | geroprotector, compound | sirolimus
everolimus | geroprotector, compound
metformin | geroprotector, compound
acarbose | geroprotector, compound
resveratrol | compound
NAD+ | compound | NAD; nicotinamide adenine dinucleotide
NADH | compound
NMN | geroprotector, compound | nicotinamide mononucleotide
nicotinamide riboside | geroprotector, compound
nicotinamide | compound
spermidine | geroprotector, compound
quercetin | compound
dasatinib | compound
fisetin | compound
navitoclax | compound
butyrate | compound | butyric acid
propionate | compound | propionic acid
acetate | compound | acetic acid
short-chain fatty acids | compound | short chain fatty acids; short-chain fatty acid; =SCFA; =SCFAs
glucose | compound
fructose | compound
cholesterol | compound
lithium | compound
aspirin | compound
vitamin D | compound | vitamin D3; cholecalciferol
alpha-ketoglutarate | geroprotector, compound | α-ketoglutarate; =AKG
urolithin A | compound
taurine | compound
glycine | compound
beta-hydroxybutyrate | compound | β-hydroxybutyrate; 3-hydroxybutyrate
lipopolysaccharide | compound | lipopolysaccharides; =LPS
trimethylamine N-oxide | compound | =TMAO
bile acids | compound | bile acid
inulin | compound
polyphenols | compound | polyphenol
semaglutide | compound
ATP | compound | =ATP; adenosine triphosphate
reactive oxygen species | compound | =ROS
CO2 | compound | =CO2; carbon dioxide
H2O2 | compound | =H2O2; hydrogen peroxide
# microbes
Akkermansia muciniphila | microbe, organism | A. muciniphila
Akkermansia | microbe, organism
Faecalibacterium prausnitzii | microbe, organism | F. prausnitzii
Lactobacillus | microbe, organism | lactobacilli
Bifidobacterium | microbe, organism | bifidobacteria
Bacteroides | microbe, organism
Escherichia coli | microbe, organism | E. coli
Clostridioides difficile | microbe, organism | Clostridium difficile; C. difficile
Helicobacter pylori | microbe, organism | H. pylori
Firmicutes | microbe, organism
Bacteroidetes | microbe, organism
Proteobacteria | microbe, organism
SARS-CoV-2 | microbe, organism
HIV-1 | microbe, organism | =HIV
gut microbiota | microbe, concept | gut microbiome; intestinal microbiota; gut microbes; gut bacteria; microbiota; microbiome
# organisms
Caenorhabditis elegans | model_organism, organism | C. elegans
Drosophila melanogaster | model_organism, organism | D. melanogaster; Drosophila; fruit flies; fruit fly
Saccharomyces cerevisiae | model_organism, organism, microbe | S. cerevisiae; budding yeast; yeast
Zebrafish | model_organism, organism | zebrafish
Rhesus monkeys | model_organism, organism | rhesus monkey; rhesus macaques; rhesus macaque
Naked mole-rat | organism | naked mole rat; naked mole-rats; Heterocephalus glaber
# diseases
obesity | disease
diet-induced obesity | disease
type 2 diabetes | disease | type 2 diabetes mellitus; type II diabetes; =T2D; =T2DM
type 1 diabetes | disease | type 1 diabetes mellitus; =T1D
diabetes | disease | diabetes mellitus
Alzheimer's disease | disease | Alzheimer disease; Alzheimers disease; Alzheimer's
Parkinson's disease | disease | Parkinson disease; Parkinsons disease
cancer | disease | cancers
atherosclerosis | disease
cardiovascular disease | disease | cardiovascular diseases; =CVD
metabolic syndrome | disease
non-alcoholic fatty liver disease | disease | nonalcoholic fatty liver disease; =NAFLD
inflammatory bowel disease | disease | inflammatory bowel diseases; =IBD
colitis | disease
hypertension | disease
sarcopenia | disease, phenotype
osteoporosis | disease
dementia | disease
COVID-19 | disease
chronic kidney disease | disease | =CKD
# biological processes and pathways
autophagy | biological_process
cellular senescence | aging_hallmark, biological_process | senescence
inflammation | biological_process
inflammaging | aging_hallmark, biological_process | inflamm-aging
chronic inflammation | aging_hallmark, biological_process
apoptosis | biological_process
aging | biological_process | ageing
mitochondrial dysfunction | aging_hallmark, biological_process
genomic instability | aging_hallmark, biological_process
telomere attrition | aging_hallmark, biological_process | telomere shortening
epigenetic alterations | aging_hallmark, biological_process | epigenetic alteration; epigenetic changes
loss of proteostasis | aging_hallmark, biological_process
deregulated nutrient sensing | aging_hallmark, biological_process
stem cell exhaustion | aging_hallmark, biological_process
dysbiosis | aging_hallmark, biological_process, phenotype
oxidative stress | biological_process
DNA damage | biological_process
mitophagy | biological_process
lipolysis | biological_process
fatty acid oxidation | biological_process | beta-oxidation; β-oxidation
gluconeogenesis | biological_process
glycolysis | biological_process
insulin signaling | pathway | insulin signalling; insulin/IGF-1 signaling; insulin/IGF-1 signalling; =IIS
mTOR signaling | pathway | mTOR pathway; mTOR signalling; mTOR signaling pathway
AMPK signaling | pathway | AMPK pathway; AMPK signalling
NF-κB signaling | pathway | NF-kB signaling; NF-κB pathway; NF-kB pathway
Wnt signaling | pathway | Wnt pathway; Wnt signalling
TCA cycle | pathway | citric acid cycle; Krebs cycle; tricarboxylic acid cycle
# phenotypes and outcomes
lifespan | lifespan_outcome, phenotype | life span; lifespans
longevity | lifespan_outcome, phenotype
healthspan | lifespan_outcome, phenotype | health span
lifespan extension | lifespan_outcome, phenotype | extended lifespan; life span extension
insulin resistance | phenotype
insulin sensitivity | phenotype
glucose tolerance | phenotype
weight gain | phenotype
body weight | phenotype
fat mass | phenotype
adiposity | phenotype
gut barrier function | phenotype | gut barrier; intestinal barrier; intestinal barrier function; intestinal permeability; barrier function
cognitive decline | phenotype
frailty | phenotype
muscle mass | phenotype
# cell types
hepatocytes | cell_type | hepatocyte
macrophages | cell_type | macrophage
T cells | cell_type | T cell; T-cells; T-cell
B cells | cell_type | B cell
senescent cells | cell_type | senescent cell
stem cells | cell_type | stem cell
neurons | cell_type | neuron
adipocytes | cell_type | adipocyte
fibroblasts | cell_type | fibroblast
goblet cells | cell_type | goblet cell
enterocytes | cell_type | enterocyte
beta cells | cell_type | beta cell; β cells; β-cells; pancreatic beta cells
microglia | cell_type
# anatomy
liver | anatomy
gut | anatomy | gastrointestinal tract
intestine | anatomy | intestines; small intestine
intestinal epithelium | anatomy | gut epithelium
colon | anatomy
brain | anatomy
skeletal muscle | anatomy
adipose tissue | anatomy | white adipose tissue; fat tissue
heart | anatomy
kidney | anatomy | kidneys
hippocampus | anatomy
mucus layer | anatomy
pancreas | anatomy
# biomarkers
HbA1c | biomarker | glycated hemoglobin; hemoglobin A1c; haemoglobin A1c
C-reactive protein | biomarker | =CRP
LDL cholesterol | biomarker | =LDL; LDL-C
HDL cholesterol | biomarker | =HDL; HDL-C
blood glucose | biomarker | fasting glucose; fasting blood glucose; plasma glucose
epigenetic clock | biomarker | epigenetic clocks; DNA methylation age
telomere length | biomarker
triglycerides | biomarker
BMI | biomarker | body mass index
biological age | biomarker
# interventions
caloric restriction | intervention | calorie restriction; dietary restriction
intermittent fasting | intervention | time-restricted feeding; time-restricted eating
exercise | intervention | physical activity; aerobic exercise
high-fat diet | intervention | high fat diet; =HFD
ketogenic diet | intervention
Mediterranean diet | intervention
fecal microbiota transplantation | intervention | faecal microbiota transplantation; fecal microbiota transplant; =FMT
probiotics | intervention | probiotic
prebiotics | intervention | prebiotic
senolytics | intervention | senolytic; senolytic drugs; senolytic therapy
placebo | intervention
# general concepts
randomized clinical trial | concept | randomized controlled trial; randomised controlled trial; randomized clinical trials; =RCT
clinical trial | concept | clinical trials
=DNA | concept
=RNA | concept
=mRNA | concept
# organizations
World Health Organization | organization | =WHO
National Institutes of Health | organization | =NIH
Food and Drug Administration | organization | =FDA
European Union | organization, location | =EU
"""


@dataclass(frozen=True)
class GazetteerEntry:
    name: str  # display name
    types: tuple[str, ...]  # preferred types, best first
    bio_only: bool = False  # a common noun that names an organism only in biomedical text ("mice")


def _parse_gazetteer(text: str) -> tuple[dict[str, GazetteerEntry], dict[str, GazetteerEntry], int]:
    insensitive: dict[str, GazetteerEntry] = {}
    sensitive: dict[str, GazetteerEntry] = {}
    longest = 1
    for raw in text.strip().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        canonical, types, *rest = [part.strip() for part in line.split("|")]
        synonyms = [s.strip() for s in rest[0].split(";")] if rest and rest[0] else []
        bio_only = canonical.startswith("~")
        canonical = canonical.lstrip("~")
        entry = GazetteerEntry(
            display_name(canonical.lstrip("=")), tuple(t.strip() for t in types.split(",")), bio_only
        )
        for surface in [canonical, *synonyms]:
            exact = surface.startswith("=")
            surface = surface.lstrip("=")
            tokens = [t.replace("’", "'") for t in TOKEN_RE.findall(surface)]
            if not tokens:
                continue
            tokens[-1] = strip_possessive(tokens[-1])  # the text side strips it from a span's end too
            longest = max(longest, len(tokens))
            if exact:
                sensitive.setdefault(" ".join(tokens), entry)
            else:
                insensitive.setdefault(" ".join(tokens).lower(), entry)
    return insensitive, sensitive, longest


def _vocabulary_gazetteer() -> str:
    """Gazetteer lines for the general vocabulary (``vocabulary.py``): places (matched as written,
    capitalised), disease words, chemical elements, and organisms named by a common noun."""
    lines = []
    for place in (*voc.COUNTRIES, *voc.REGIONS, *voc.CITIES):
        lines.append(f"={place} | location")
    for word in sorted(voc.DISEASE_WORDS):
        lines.append(f"{word} | disease, phenotype")
    for word in sorted(voc.ELEMENT_WORDS):
        lines.append(f"{word} | compound")
    return "\n".join(lines)


# Organisms named by a common noun (biomedical text only: "flies" and "cats" are not always
# study animals); several spellings, one name. "patients" are humans.
_ORGANISM_TEXT = """
United States | location | =US; =USA; =U.S.; =U.S.A.; United States of America
United Kingdom | location | =UK; =U.K.
Soviet Union | location | =USSR
United Arab Emirates | location | =UAE
~Humans | organism | human; humans; patient; patients
~Mice | model_organism, organism | mouse; mice; murine
~Rats | model_organism, organism | rat; rats
~Hamsters | organism | hamster
~Guinea pigs | organism | guinea pig; guinea-pig; guinea-pigs
~Rabbits | organism | rabbit
~Dogs | organism | dog; canine
~Cats | organism | cat; feline
~Pigs | organism | pig; piglets; piglet; swine; porcine
~Sheep | organism | ovine
~Goats | organism | goat
~Cattle | organism | cow; cows; calves; bovine
~Horses | organism | horse; equine
~Monkeys | organism | monkey; primates; primate; macaques; macaque
~Chimpanzees | organism | chimpanzee
~Chickens | organism | chicken; chick; chicks
~Frogs | organism | frog
~Nematodes | model_organism, organism | nematode; worms; worm
~Bacteria | microbe, organism | bacterium; bacterial strains
~Viruses | microbe, organism | virus
~Fungi | microbe, organism | fungus
"""

GAZETTEER, GAZETTEER_EXACT, GAZETTEER_MAX_TOKENS = _parse_gazetteer(
    _GAZETTEER_TEXT + "\n" + _ORGANISM_TEXT + "\n" + _vocabulary_gazetteer()
)
GAZETTEER_FIRST = frozenset(k.split(" ")[0] for k in GAZETTEER)
GAZETTEER_EXACT_FIRST = frozenset(k.split(" ")[0] for k in GAZETTEER_EXACT)

# Species epithets of gazetteer binomials, to resolve "A. muciniphila"-style abbreviations.
SPECIES_INDEX: dict[tuple[str, str], GazetteerEntry] = {}
for _key, _entry in GAZETTEER.items():
    _parts = _key.split(" ")
    if len(_parts) == 2 and len(_parts[0]) > 2 and _parts[0].isalpha() and _parts[1].isalpha():
        if _entry.types[0] in ("microbe", "model_organism", "organism"):
            SPECIES_INDEX.setdefault((_parts[0][0], _parts[1]), _entry)

# -- general word lists --------------------------------------------------------------------------

STOPWORDS = frozenset(
    """
a about above across after afterwards again against all almost alone along already also although always am
among amongst an and another any anyhow anyone anything anyway anywhere are around as at back be became
because become becomes becoming been before beforehand behind being below beside besides between beyond both
but by can cannot could did do does doing done down due during each either else elsewhere enough especially
etc even ever every everyone everything everywhere except few first for former formerly from further furthermore
had has have having he hence her here hereafter hereby herein hers herself him himself his how however i if in
indeed into is it its itself just last latter latterly least less many may me meanwhile might more moreover
most mostly much must my myself namely neither never nevertheless next no nobody none nor not nothing now
nowhere of off often on once one only onto or other others otherwise our ours ourselves out over own per
perhaps please put rather re same see seem seemed seeming seems several she should since so some somehow
someone something sometime sometimes somewhere still such than that the their theirs them themselves then
thence there thereafter thereby therefore therein thereupon these they this those though through throughout
thru thus to together too toward towards under until up upon us very via was we well were what whatever when
whence whenever where whereas whereby wherein whether which while who whoever whole whom whose why will with
within without would yet you your yours yourself yourselves also using used use based including include
includes included within among whereas although thereby e.g i.e et al fig figure figures table tables vs
shown show shows showed found find finds suggest suggests suggested reported report reports study studies
studied result results data one two three four five six seven eight nine ten new recent recently
    """.split()
)

# Capitalised words that start sentences or label things but are not names.
COMMON_CAPITALISED = frozenset(
    """
figure fig table tables supplementary appendix section chapter equation eq methods method results result
discussion introduction conclusion conclusions abstract background objective objectives design setting
participants note notes data however although moreover furthermore therefore thus overall finally first
second third here there this these those the a an in on at for from by with our we they it its their
january february march april may june july august september october november december monday tuesday
wednesday thursday friday saturday sunday author authors editor review article study studies trial patients
group groups control controls week weeks day days year years starring featuring directed written produced
including according born founded located based after before during since
    """.split()
)

# Gene/protein symbols found by pattern that belong to protein families (else: gene).
PROTEIN_PREFIXES = (
    "IL",
    "TNF",
    "IFN",
    "TGF",
    "VEGF",
    "FGF",
    "PDGF",
    "EGF",
    "MMP",
    "CASP",
    "HSP",
    "PGC",
    "HIF",
    "NF",
    "COX",
    "AKT",
    "ERK",
    "JNK",
    "MAPK",
    "PI3K",
    "PKC",
    "PKA",
    "S6K",
    "SIRT",
    "CD",
    "GLP",
    "GDF",
    "CCL",
    "CXCL",
    "TLR",
    "ATG",
    "LC3",
    "BCL",
    "CDK",
)

# All-caps tokens that look like symbols but are not genes or proteins.
ACRONYM_STOP = frozenset(
    """
DNA RNA USA UK EU WHO BMI HIV AIDS PCR ELISA MRI CT PET ICU IQ ANOVA SD SEM SE CI OR HR RR USD GDP NA ND
NS RCT NHS PHD MD BSC MSC CEO IBD COPD AD PD MS ALS ADHD OCD PTSD NASA FBI CIA UN NATO IT AI ML API URL PDF
HTML JSON XML CSV SQL GPU CPU RAM USB TV FM AM PM BC BCE CE AC DC ID NO ON IN AT OF TO BY UP IS AS AN
COVID SARS MERS ISO DSM ICD GPT UTF MP FDA NIH CDC EMA HFD FMT LPS SCFA SCFAS IIS CR DR NR OK USSR PNAS
PLOS JAMA BMJ NEJM CELL SNP SNPS HPLC EEG ECG EKG RFLP SSCP LOD GFP YFP RFP CFP EGFP UTR ORF CNS PNS AUC ROC
IQR NMR FACS IHC CDNA QTL GWAS MAF BMD MMSE ADL VAS FDR IVS III VIII XII LC GC MRS DTI PCA SVM BID TID QID
MEDLINE PUBMED EMBASE CINAHL AIMS OBJECTIVE OBJECTIVES METHODS RESULTS CONCLUSION CONCLUSIONS BACKGROUND
    """.split()
)

# Tokens that look like mixed-case symbols but are units, techniques or journals.
SYMBOL_STOP = frozenset(
    """
kDa mmHg mL dL nM mM µM pH kHz mAb siRNA shRNA miRNA mRNA tRNA rRNA lncRNA cDNA mtDNA gDNA iPSC iPSCs eLife
mSystems mBio iScience qPCR mTORC C57BL QIIME2 BALB CO2 H2O H2O2 O2 NO2 SO2 CH4 NH3 H2S N2O O3 PM2 PM10 MP3 MP4 COVID19
    """.split()
)

# Genera accepted as the first word of a binomial ("Bacteroides fragilis") whatever their ending.
KNOWN_GENERA = frozenset(
    """
Akkermansia Faecalibacterium Lactobacillus Bifidobacterium Bacteroides Escherichia Clostridium Clostridioides
Helicobacter Prevotella Ruminococcus Roseburia Eubacterium Blautia Streptococcus Staphylococcus Enterococcus
Klebsiella Salmonella Pseudomonas Bacillus Listeria Shigella Vibrio Mycobacterium Christensenella Bilophila
Desulfovibrio Parabacteroides Alistipes Collinsella Dorea Coprococcus Veillonella Fusobacterium Porphyromonas
Candida Aspergillus Saccharomyces Limosilactobacillus Lacticaseibacillus Lactiplantibacillus Anaerobutyricum
Odoribacter Oscillibacter Methanobrevibacter Enterobacter Citrobacter Proteus Serratia Neisseria Haemophilus
Caenorhabditis Drosophila Mus Rattus Homo Danio Macaca Arabidopsis Heterocephalus Nothobranchius Xenopus
Schizosaccharomyces Pan Canis Felis Bos Sus Gallus Oryza Zea Triticum
    """.split()
)
ORGANISM_GENERA = frozenset(
    """
Caenorhabditis Drosophila Mus Rattus Homo Danio Macaca Arabidopsis Heterocephalus Nothobranchius Xenopus
Pan Canis Felis Bos Sus Gallus Oryza Zea Triticum
    """.split()
)
# Endings that mark an unknown capitalised word as a genus. Only distinctive ones: "-ia" and "-ium"
# end place names too ("Nigeria", "Virginia", "Belgium"), "-ella" given names ("Isabella").
GENUS_ENDINGS = (
    "bacter",
    "coccus",
    "cocci",
    "bacillus",
    "bacterium",
    "monas",
    "myces",
    "spira",
    "plasma",
    "vibrio",
    "oides",
    "bacteria",
    "mycetes",
)
SPECIES_ENDINGS = (
    "ii",
    "ae",
    "is",
    "us",
    "um",
    "ans",
    "ens",
    "ensis",
    "icus",
    "ica",
    "ata",
    "ila",
    "oides",
    "alis",
    "ilis",
    "aris",
    "ophila",
    "ogenes",
    "orum",
    "arum",
    "i",
    "a",
)
# Words after a genus that are not species epithets ("Bacteroides increased", "Akkermansia abundance").
NOT_SPECIES = frozenset(
    """
species strain strains genus genera spp abundance abundances levels level counts count cells populations
population members member group groups colonization colonisation growth supplementation treatment
administration load loads presence numbers taxa isolates isolate culture cultures bacteria was were is are
has have had can may might could would should will did does
    """.split()
)
NOT_SPECIES_ENDINGS = ("ed", "ing", "ly", "tion", "sion", "ment", "ance", "ence", "ity", "ness", "ship")

STRONG_COMPOUND_SUFFIXES = voc.STRONG_COMPOUND_SUFFIXES
WEAK_COMPOUND_SUFFIXES = voc.WEAK_COMPOUND_SUFFIXES
WEAK_SUFFIX_MIN = voc.WEAK_SUFFIX_MIN
COMPOUND_STOP = voc.COMPOUND_STOP
DISEASE_SUFFIXES = voc.DISEASE_SUFFIXES
# Distinctive enough to name a disease even capitalised at a sentence start ("Hepatitis ...");
# "-oma" is not ("Thomas", "Oklahoma").
STRONG_DISEASE_SUFFIXES = ("itis", "osis", "iasis", "emia", "aemia", "uria", "pathy", "algia", "plasia", "plegia")
DISEASE_STOP = voc.DISEASE_STOP

# Heads of multi-word disease names ("chronic kidney disease", "breast cancer").
DISEASE_HEADS = {w: w for w in voc.DISEASE_HEAD_WORDS}
ADJECTIVE_SUFFIXES = ("al", "ic", "ary", "ory", "ous", "ive", "ar", "ile", "oid", "able", "ible", "ent", "ant")
ORGAN_WORDS = frozenset(
    """
kidney liver heart lung lungs breast bowel prostate colon colorectal skin bone brain blood fatty thyroid
memory hearing weight vision eye eyes ear liver renal hepatic cardiac
pancreatic ovarian cervical gastric stomach bladder uterine skeletal muscle gum periodontal celiac coeliac
lyme graves crohn huntington parkinson alzheimer addison cushing motor neuron autoimmune cell artery
coronary valve eye retinal macular joint spine spinal
    """.split()
)
NON_MODIFIERS = frozenset(
    """
several various numerous other many additional potential total special general actual usual overall original
initial final individual typical similar particular serious previous respective relative positive negative
effective comparative cumulative natural normal critical essential crucial vital global annual multiple
different important relevant significant recent current present frequent consistent independent dependent
subsequent apparent evident sufficient efficient prevalent persistent transient constant distant prominent
dominant resistant extant relevant pertinent elegant abundant redundant important significant relevant
certain main major minor key common such same own whole entire further latter former
    """.split()
)
CELL_MODIFIERS = frozenset(
    """
cancer tumor tumour stem immune beta killer goblet paneth germ muscle fat liver blood red white mast
plasma satellite progenitor epithelial endothelial dendritic somatic senescent neural nerve hair islet
memory effector helper regulatory naive mesenchymal hematopoietic haematopoietic cardiac skin bone
    """.split()
)

# Capitalised-phrase cues for the general domain.
ORG_WORDS = voc.ORG_LAST
ORG_FIRST = voc.ORG_FIRST
LOCATION_LAST = frozenset(
    """
River City Lake Mountain Mountains Sea Ocean Island Islands Valley County Province Bay Gulf Desert Canyon
Peninsula Strait Delta Basin Falls Forest Region Republic Kingdom Town Village Coast Plateau Plain Plains
Hills Alps Street Square Avenue Road Bridge Park Airport Station Harbour Harbor Beach Heights Springs
District Township Parish Borough State Territory Archipelago Glacier Volcano Creek Reservoir Canal
    """.split()
)
LOCATION_FIRST = voc.LOCATION_FIRST
DEMONYMS = voc.DEMONYMS
PERSON_TITLES = voc.PERSON_TITLES
NAME_PARTICLES = frozenset("of de da di du del della der van von la le bin ibn al".split())

# -- relation cues ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cue:
    tag: str  # the relationship keyword
    verb: str | None  # regex of the verbal forms (active or passive), None if none
    noun: str | None  # regex of the nominal/adjectival forms
    base: str | None  # the base verb for questions ("activate"), None if not a verb cue
    kind: str  # "verb" | "assoc" | "effect" | "place" | "other"


CUES: tuple[Cue, ...] = (
    Cue("upregulates", r"up-?regulat(?:e|es|ed)", r"up-?regulat(?:ing|ion)", "upregulate", "verb"),
    Cue("downregulates", r"down-?regulat(?:e|es|ed)", r"down-?regulat(?:ing|ion)", "downregulate", "verb"),
    Cue(
        "increases",
        r"increas(?:e|es|ed)|elevat(?:e|es)|rais(?:e|es)|doubl(?:e|es|ed)",
        r"increas(?:ing)|elevat(?:ed|ion|ing)",
        "increase",
        "verb",
    ),
    Cue("decreases", r"decreas(?:e|es|ed)|lower(?:s|ed)", r"decreas(?:ing)", "decrease", "verb"),
    Cue("reduces", r"reduc(?:e|es|ed)", r"reduc(?:ing|tion|tions)", "reduce", "verb"),
    Cue("inhibits", r"inhibit(?:s|ed)?", r"inhibit(?:ing|ion|ions|or|ors|ory)", "inhibit", "verb"),
    Cue("activates", r"activat(?:e|es|ed)", r"activat(?:ing|ion|or|ors)", "activate", "verb"),
    Cue("suppresses", r"suppress(?:es|ed)?", r"suppress(?:ing|ion|or|ors)", "suppress", "verb"),
    Cue("promotes", r"promot(?:e|es|ed)", r"promot(?:ing|ion)", "promote", "verb"),
    Cue("induces", r"induc(?:e|es|ed)", r"induc(?:ing|tion)", "induce", "verb"),
    Cue("extends", r"extend(?:s|ed)?|prolong(?:s|ed)?", r"extending|extension|prolong(?:ing|ation)", "extend", "verb"),
    Cue("improves", r"improv(?:e|es|ed)", r"improv(?:ing|ement|ements)", "improve", "verb"),
    Cue("regulates", r"regulat(?:e|es|ed)", r"regulat(?:ing|ion|or|ors|ory)", "regulate", "verb"),
    Cue("modulates", r"modulat(?:e|es|ed)", r"modulat(?:ing|ion|or|ors)", "modulate", "verb"),
    Cue("mediates", r"mediat(?:e|es|ed)", r"mediat(?:ing|ion|or|ors)", "mediate", "verb"),
    Cue("controls", r"control(?:s|led)", None, "control", "verb"),
    Cue("protects", r"protect(?:s|ed)?", r"protect(?:ing|ion|ive)", "protect", "verb"),
    Cue("prevents", r"prevent(?:s|ed)?", r"prevent(?:ing|ion)", "prevent", "verb"),
    Cue("causes", r"caus(?:e|es|ed)", r"causing|causal", "cause", "verb"),
    Cue("leads to", r"lead(?:s)? to|led to", r"leading to", "lead to", "verb"),
    Cue("contributes to", r"contribut(?:e|es|ed) to", r"contribut(?:ing|ion) to", "contribute to", "verb"),
    Cue("enhances", r"enhanc(?:e|es|ed)", r"enhanc(?:ing|ement)", "enhance", "verb"),
    Cue("blocks", r"block(?:s|ed)", r"blocking|blockade", "block", "verb"),
    Cue("restores", r"restor(?:e|es|ed)", r"restor(?:ing|ation)", "restore", "verb"),
    Cue("attenuates", r"attenuat(?:e|es|ed)", r"attenuat(?:ing|ion)", "attenuate", "verb"),
    Cue("ameliorates", r"ameliorat(?:e|es|ed)", r"ameliorat(?:ing|ion)", "ameliorate", "verb"),
    Cue("alleviates", r"alleviat(?:e|es|ed)", r"alleviat(?:ing|ion)", "alleviate", "verb"),
    Cue("impairs", r"impair(?:s|ed)?", r"impair(?:ing|ment)", "impair", "verb"),
    Cue("binds", r"bind(?:s)?|bound to", r"binding", "bind", "verb"),
    Cue("phosphorylates", r"phosphorylat(?:e|es|ed)", r"phosphorylat(?:ing|ion)", "phosphorylate", "verb"),
    Cue("deacetylates", r"deacetylat(?:e|es|ed)", r"deacetylat(?:ing|ion)", "deacetylate", "verb"),
    Cue("encodes", r"encod(?:e|es|ed)", r"encoding", "encode", "verb"),
    Cue("produces", r"produc(?:e|es|ed)", r"produc(?:ing|tion|er|ers)", "produce", "verb"),
    Cue("degrades", r"degrad(?:e|es|ed)", r"degrad(?:ing|ation)", "degrade", "verb"),
    Cue("metabolizes", r"metaboli[sz](?:e|es|ed)", r"metaboli[sz]ing", "metabolize", "verb"),
    Cue("ferments", r"ferment(?:s|ed)", r"ferment(?:ing|ation)", "ferment", "verb"),
    Cue("targets", r"target(?:s|ed)", r"targeting", "target", "verb"),
    Cue(
        "clears",
        r"clear(?:s|ed)|eliminat(?:e|es|ed)|remov(?:e|es|ed)",
        r"clearance|eliminat(?:ing|ion)|removal",
        "clear",
        "verb",
    ),
    Cue("mimics", r"mimic(?:s|ked)?", r"mimicking|mimetic|mimetics", "mimic", "verb"),
    Cue("contains", r"contain(?:s|ed)?", r"containing", "contain", "verb"),
    Cue("flows through", r"flow(?:s|ed)? through", r"flowing through", "flow through", "verb"),
    Cue("flows into", r"flow(?:s|ed)? into|empt(?:ies|ied) into", r"flowing into", "flow into", "verb"),
    Cue(
        "associated with",
        None,
        r"associat(?:ed|ion|ions) with|link(?:ed)? (?:to|with)|correlat(?:e|es|ed|ion|ions) with",
        None,
        "assoc",
    ),
    Cue("risk", None, r"risks?", None, "other"),
    Cue("supplementation", None, r"supplement(?:s|ed|ation|ing)?", None, "effect"),
    Cue("treatment", None, r"treat(?:ed|ment|ments|ing)?|administ(?:ered|ration)|therapy", None, "effect"),
    Cue("deficiency", None, r"deficien(?:cy|t|cies)", None, "effect"),
    Cue("effect", None, r"effects? (?:of|on)|affect(?:s|ed)?", None, "effect"),
    Cue("knockout", None, r"knock-?(?:out|down)|knocked[ -]?(?:out|down)|deletion", None, "effect"),
    Cue("expression", None, r"(?:over-?)?express(?:es|ed|ion|ing)", None, "other"),
    Cue("loss", None, r"loss of|lack of|depletion of|absence of", None, "effect"),
    Cue("abundance", None, r"abundan(?:ce|t)", None, "other"),
    Cue("trial", None, r"trials?", None, "other"),
    Cue("located in", None, r"(?:located|situated|lies|lie|lying) (?:in|on|at|near)", None, "place"),
    Cue("capital of", None, r"capital (?:city )?of", None, "place"),
    Cue("part of", None, r"part of", None, "other"),
    Cue("founded", None, r"found(?:ed|ing)|establish(?:ed|ment)", None, "other"),
    Cue("born in", None, r"born in", None, "other"),
    Cue("member of", None, r"members? of", None, "other"),
)


def _branches(pattern: str) -> list[str]:
    """The top-level alternatives of a regex."""
    out, depth, start = [], 0, 0
    for i, c in enumerate(pattern):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            out.append(pattern[start:i])
            start = i + 1
    out.append(pattern[start:])
    return out


def _first_letters(pattern: str) -> set[str]:
    """Letters a match of ``pattern`` (a cue regex: literals, groups, ``?``) can start with."""
    letters: set[str] = set()
    for branch in _branches(pattern):
        if branch.startswith("(?:"):
            depth, end = 0, 0
            for i, c in enumerate(branch):
                depth += c == "("
                depth -= c == ")"
                if depth == 0:
                    end = i
                    break
            letters |= _first_letters(branch[3:end])
            if branch[end + 1 : end + 2] == "?":
                letters |= _first_letters(branch[end + 2 :])
        elif branch:
            letters.add(branch[0].lower())
    return letters


def _cue_regexes() -> dict[str, re.Pattern[str]]:
    """One regex per first letter, tried at word starts only (much cheaper than one alternation
    scanned over every character)."""
    parts: dict[str, list[str]] = {}
    for i, cue in enumerate(CUES):
        for kind, pattern in (("v", cue.verb), ("n", cue.noun)):
            if pattern:
                for letter in sorted(_first_letters(pattern)):
                    parts.setdefault(letter, []).append(f"(?P<{kind}{i}>{pattern})")
    return {
        letter: re.compile(r"(?:" + "|".join(alts) + r")(?![\w-])", re.IGNORECASE) for letter, alts in parts.items()
    }


CUE_BY_LETTER = _cue_regexes()


# Negation cues and clause words are word lists in data/ (``cue_words``).
NEGATION = cue_words.NEGATION
CLAUSE_WORDS = cue_words.CLAUSE_WORDS

# Question wording per entity type ("Which compound activates AMPK?").
TYPE_NOUN = {
    "gene": "gene",
    "protein": "protein",
    "compound": "compound",
    "geroprotector": "compound",
    "microbe": "microbe",
    "organism": "organism",
    "model_organism": "organism",
    "disease": "disease",
    "phenotype": "trait",
    "lifespan_outcome": "outcome",
    "biological_process": "process",
    "aging_hallmark": "process",
    "pathway": "pathway",
    "cell_type": "cell type",
    "anatomy": "tissue",
    "intervention": "intervention",
    "biomarker": "biomarker",
    "organization": "organization",
    "location": "place",
}
# Types whose role in a disease or process is worth asking about.
ACTOR_TYPES = frozenset(
    "gene protein compound geroprotector microbe intervention pathway biological_process aging_hallmark "
    "cell_type biomarker".split()
)
CONTEXT_TYPES = frozenset("disease phenotype lifespan_outcome biological_process aging_hallmark pathway".split())
PLURAL_WORDS = frozenset("mice people children bacteria lactobacilli bifidobacteria humans rats".split())
