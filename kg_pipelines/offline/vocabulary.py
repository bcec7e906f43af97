"""General vocabulary of the offline recogniser: geography, given names, the head nouns that type a
name by what the text says it is, and general biomedical word formation.

Every list here is general knowledge, written for text the recogniser has never seen: the world's
countries and first-level regions, large cities, common given names, the nouns that say what kind
of thing a name is ("an American *actor*", "a *river* in ..."), common disease and symptom words,
animals, chemical elements, and the word endings of drug names (the WHO INN stems). No entry is
here because some document or test mentions it.
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _lines(text: str) -> tuple[str, ...]:
    return tuple(line.strip() for line in text.strip().splitlines() if line.strip())


# -- geography ------------------------------------------------------------------------------------

COUNTRIES = _lines(
    """
Afghanistan
Albania
Algeria
Andorra
Angola
Argentina
Armenia
Australia
Austria
Azerbaijan
Bahamas
Bahrain
Bangladesh
Barbados
Belarus
Belgium
Belize
Benin
Bhutan
Bolivia
Bosnia and Herzegovina
Botswana
Brazil
Brunei
Bulgaria
Burkina Faso
Burundi
Cambodia
Cameroon
Canada
Cape Verde
Central African Republic
Chad
Chile
China
Colombia
Comoros
Costa Rica
Croatia
Cuba
Cyprus
Czech Republic
Czechia
Democratic Republic of the Congo
Denmark
Djibouti
Dominica
Dominican Republic
East Timor
Ecuador
Egypt
El Salvador
Equatorial Guinea
Eritrea
Estonia
Eswatini
Ethiopia
Fiji
Finland
France
Gabon
Gambia
Georgia
Germany
Ghana
Greece
Grenada
Guatemala
Guinea
Guinea-Bissau
Guyana
Haiti
Honduras
Hungary
Iceland
India
Indonesia
Iran
Iraq
Ireland
Israel
Italy
Ivory Coast
Jamaica
Japan
Jordan
Kazakhstan
Kenya
Kiribati
Kosovo
Kuwait
Kyrgyzstan
Laos
Latvia
Lebanon
Lesotho
Liberia
Libya
Liechtenstein
Lithuania
Luxembourg
Madagascar
Malawi
Malaysia
Maldives
Mali
Malta
Mauritania
Mauritius
Mexico
Micronesia
Moldova
Monaco
Mongolia
Montenegro
Morocco
Mozambique
Myanmar
Burma
Namibia
Nauru
Nepal
Netherlands
New Zealand
Nicaragua
Niger
Nigeria
North Korea
North Macedonia
Macedonia
Norway
Oman
Pakistan
Palau
Palestine
Panama
Papua New Guinea
Paraguay
Peru
Philippines
Poland
Portugal
Qatar
Romania
Russia
Rwanda
Samoa
San Marino
Saudi Arabia
Senegal
Serbia
Seychelles
Sierra Leone
Singapore
Slovakia
Slovenia
Solomon Islands
Somalia
South Africa
South Korea
South Sudan
Spain
Sri Lanka
Sudan
Suriname
Sweden
Switzerland
Syria
Taiwan
Tajikistan
Tanzania
Thailand
Togo
Tonga
Trinidad and Tobago
Tunisia
Turkey
Turkmenistan
Tuvalu
Uganda
Ukraine
United Arab Emirates
United Kingdom
United States
Uruguay
Uzbekistan
Vanuatu
Vatican City
Venezuela
Vietnam
Yemen
Zambia
Zimbabwe
England
Scotland
Wales
Northern Ireland
Great Britain
Soviet Union
Yugoslavia
Czechoslovakia
Prussia
Ottoman Empire
Roman Empire
Byzantine Empire
Holy Roman Empire
Austria-Hungary
Greenland
Puerto Rico
Hong Kong
Macau
"""
)

REGIONS = _lines(
    """
Alabama
Alaska
Arizona
Arkansas
California
Colorado
Connecticut
Delaware
Florida
Hawaii
Idaho
Illinois
Indiana
Iowa
Britain
America
Western Australia
South Australia
Northern Territory
Uttar Pradesh
Maharashtra
Tamil Nadu
Kerala
Karnataka
West Bengal
Gujarat
Rajasthan
Bihar
Assam
Andhra Pradesh
Telangana
Midwest
Kansas
Kentucky
Louisiana
Maine
Maryland
Massachusetts
Michigan
Minnesota
Mississippi
Missouri
Montana
Nebraska
Nevada
New Hampshire
New Jersey
New Mexico
New York
North Carolina
North Dakota
Ohio
Oklahoma
Oregon
Pennsylvania
Rhode Island
South Carolina
South Dakota
Tennessee
Texas
Utah
Vermont
Virginia
Washington
West Virginia
Wisconsin
Wyoming
District of Columbia
Ontario
Quebec
British Columbia
Alberta
Manitoba
Saskatchewan
Nova Scotia
New Brunswick
Newfoundland
Queensland
New South Wales
Victoria
Tasmania
Bavaria
Saxony
Catalonia
Andalusia
Tuscany
Sicily
Sardinia
Lombardy
Normandy
Brittany
Provence
Flanders
Wallonia
Siberia
Anatolia
Punjab
Bengal
Kashmir
Tibet
Manchuria
Patagonia
Scandinavia
Balkans
Caucasus
Middle East
Caribbean
Mediterranean
Europe
Asia
Africa
North America
South America
Central America
Latin America
Oceania
Antarctica
Arctic
Southeast Asia
East Asia
West Africa
East Africa
Eastern Europe
Western Europe
"""
)

CITIES = _lines(
    """
London
Paris
Berlin
Vienna
Budapest
Rome
Madrid
Barcelona
Lisbon
Amsterdam
Brussels
Prague
Warsaw
Stockholm
Oslo
Copenhagen
Helsinki
Dublin
Edinburgh
Glasgow
Manchester
Liverpool
Birmingham
Athens
Istanbul
Moscow
Saint Petersburg
Kyiv
Kiev
Munich
Hamburg
Frankfurt
Cologne
Zurich
Geneva
Milan
Naples
Venice
Florence
Lyon
Marseille
Bucharest
Sofia
Belgrade
Zagreb
Bratislava
Tokyo
Osaka
Kyoto
Beijing
Shanghai
Seoul
Delhi
New Delhi
Mumbai
Bombay
Kolkata
Calcutta
Chennai
Bangalore
Karachi
Lahore
Dhaka
Bangkok
Jakarta
Manila
Singapore
Sydney
Melbourne
Brisbane
Perth
Auckland
Cairo
Lagos
Nairobi
Johannesburg
Cape Town
Tehran
Baghdad
Jerusalem
Tel Aviv
Dubai
Riyadh
Toronto
Montreal
Vancouver
Ottawa
New York City
Los Angeles
Chicago
Houston
Philadelphia
Phoenix
San Antonio
San Diego
Dallas
San Francisco
Seattle
Boston
Detroit
Atlanta
Miami
Baltimore
Denver
Nashville
Memphis
New Orleans
Las Vegas
Pittsburgh
Cleveland
Cincinnati
St. Louis
Minneapolis
Honolulu
Hollywood
Brooklyn
Manhattan
Mexico City
Buenos Aires
Rio de Janeiro
São Paulo
Sao Paulo
Lima
Bogotá
Santiago
Havana
"""
)

# -- people ----------------------------------------------------------------------------------------

# Common given names: a capitalised name that starts with one of them names a person
# ("Lester Smith", "Mary Ann Evans").
GIVEN_NAMES = _words(
    """
Aaron Abraham Adam Adrian Alan Albert Alec Alex Alexander Alexandra Alexis Alfred Alice Alicia Alison Allan Allen
Amanda Amber Amelia Amy Andrea Andrew Andy Angela Angelina Ann Anna Anne Annie Anthony Antonio Arthur Ashley
Audrey Barbara Barry Ben Benjamin Bernard Beth Betty Bill Billy Bob Bobby Bonnie Brad Bradley Brandon Brenda
Brett Brian Bruce Bryan Carl Carlos Carol Caroline Carolyn Catherine Charles Charlie Charlotte Chris Christian
Christina Christine Christopher Cindy Claire Clara Clarence Claude Claudia Colin Connie Craig Cynthia Dale Dan
Daniel Danielle Danny Darren Dave David Dean Deborah Debra Denis Dennis Derek Diana Diane Dick Dominic Don Donald
Donna Doris Dorothy Doug Douglas Duncan Dustin Dwight Earl Ed Eddie Edgar Edith Edmund Edward Edwin Eileen Elaine
Eleanor Elizabeth Ellen Emily Emma Eric Erik Erin Ernest Ethan Eugene Eva Evan Evelyn Felix Florence Frances
Francis Frank Franklin Fred Frederick Gabriel Gary Gavin Gene George Gerald Gilbert Gina Glen Glenn Gloria
Gordon Grace Graham Grant Greg Gregory Hannah Harold Harriet Harry Harvey Heather Helen Henry Herbert Howard Hugh
Ian Irene Isaac Isabel Isabella Ivan Jack Jackie Jacob Jacqueline James Jamie Jan Jane Janet Janice Jason Jay
Jean Jeff Jeffrey Jennifer Jenny Jeremy Jerome Jerry Jesse Jessica Jill Jim Jimmy Joan Joanna Joe Joel John
Johnny Jon Jonathan Jordan Joseph Josephine Josh Joshua Joyce Juan Judith Judy Julia Julian Julie Justin Karen
Karl Kate Katherine Kathleen Kathryn Kathy Katie Keith Kelly Ken Kenneth Kevin Kim Kirk Kyle Larry Laura Lauren
Lawrence Leo Leon Leonard Leslie Lester Lewis Lillian Linda Lisa Lloyd Lois Lorraine Louis Louise Lucas Lucy Luis
Luke Lynn Margaret Maria Marie Marilyn Mario Marion Mark Martha Martin Marvin Mary Matt Matthew Maureen Max
Megan Melissa Melvin Michael Michelle Mike Mildred Miles Milton Mitchell Molly Monica Nancy Natalie Nathan Neil
Nicholas Nick Nicole Noah Norman Oliver Olivia Oscar Owen Pamela Patricia Patrick Paul Paula Pauline Pearl Peggy
Penelope Peter Phil Philip Phillip Phyllis Rachel Ralph Randy Ray Raymond Rebecca Reginald Rhonda Richard Rick
Ricky Rita Rob Robert Roberta Robin Rod Rodney Roger Ron Ronald Rose Roy Ruby Russell Ruth Ryan Sally Sam Samantha
Samuel Sandra Sara Sarah Scott Sean Sharon Shawn Sheila Shirley Sidney Simon Sophia Sophie Stanley Stella Stephanie
Stephen Steve Steven Stuart Susan Suzanne Sylvia Tammy Ted Teresa Terry Theodore Theresa Thomas Tim Timothy Tina
Todd Tom Tommy Tony Tracy Travis Troy Tyler Valerie Vanessa Victor Victoria Vincent Virginia Walter Wanda Warren
Wayne Wendy Wesley Willard William Willie Wilson Yvonne Zachary
Ahmed Ali Alessandro Alain Alberto Aleksandr Alexei Anders Andrei Andreas Antoine Carlo Christoph Dieter Dmitri
Dmitry Eduardo Emil Emilio Enrique Federico Fernando Francesco Francisco François Franz Friedrich Fritz Giovanni
Giuseppe Gustav Hans Heinrich Helmut Hugo Igor Ingrid Jacques Jan Javier Jens Johan Johann Johannes Jorge José
Juan Jürgen Karl Klaus Lars Leonardo Ludwig Luigi Manuel Marco Marcel Mikhail Miguel Mohammed Muhammad Nikolai
Olga Otto Pablo Pedro Pierre Pietro Rafael Ricardo Roberto Rudolf Sergei Sergey Sven Vladimir Wilhelm Wolfgang
Yuri Akira Hiroshi Kenji Takashi Yoshi Wei Ming Chen Li Jun Raj Rahul Amit Sanjay Priya
Abdul Abigail Ada Adele Agnes Aidan Aileen Alfonso Alicia Alma Amir Ana Andre André Angus Anton Archibald Arnold
Astrid Axel Barney Basil Beatrice Benedict Bernadette Bertrand Bette Beverly Blake Boris Brendan Bridget Brooke
Bruno Bryce Buck Byron Caleb Calvin Camille Candace Carla Carmen Caroline Carrie Casey Cecil Cecilia Cedric
Chandra Chad Charlene Chester Chloe Christie Clark Claudio Clifford Clint Clyde Cody Cole Conan Conrad Cora Cornelius
Courtney Curtis Daisy Damian Damon Dana Daphne Darius Darryl Dave Dawn Della Delia Desmond Dexter Dolores Dominique
Doris Dylan Earnest Edna Eli Elias Elijah Eliza Ella Ellie Elliot Elliott Elmer Eloise Elsa Elvis Emile Emilia
Emmett Enzo Erich Ernie Ernst Errol Esther Ethel Eugenia Eunice Eva Everett Ezra Fatima Faye Felicity Fiona
Floyd Francesca Freddie Frida Gail Garrett Gemma Geoffrey Gerard Gerhard Gertrude Gideon Gillian Giulia Gladys
Glenda Gordon Greta Gretchen Gwen Gwendolyn Hal Hank Hans Harriet Hassan Hazel Hector Heidi Helga Herman Hilda
Holly Homer Horace Howard Hubert Humphrey Ian Iain Ida Ignacio Ike Ilya Imogen Ingrid Ira Iris Irving Isaiah Ivy
Jacques Jade Jake Jared Jasmine Jasper Javier Jeanne Jed Jennie Jeremiah Jess Jessie Joanne Jody Johanna Jonah
Josef Judd Jules Juliet June Justine Kai Karina Katharine Kay Keanu Kelvin Kendall Kent Kerry Kirsten Kurt Lance
Lara Laurence Laurie Lee Leigh Lena Leroy Leslie Liam Lily Lionel Liza Lorenzo Lorna Lou Lucille Luther Lydia
Lyle Mabel Mack Madeleine Madison Mae Maggie Malcolm Mandy Marcus Margot Marian Marina Marjorie Marlene Marshall
Mason Mathilde Matilda Maude Maurice Mavis Maxwell May Meg Mel Melanie Mervyn Mia Mickey Milo Mina Miriam Mohan
Mona Monty Morgan Morris Moses Muriel Myrtle Nadia Naomi Nat Ned Nell Nelson Neville Nigel Nigella Nina Noel Nora
Norma Norris Olaf Olive Ollie Omar Orson Oswald Otis Ozzy Pat Patsy Percy Perry Pete Petra Phoebe Pierce Piers
Priscilla Quentin Quincy Rafael Ralph Ramon Randall Raquel Reed Reggie Rex Rhys Ricardo Riley Rita Roland Rolf
Roman Ronnie Rosa Rosalind Rosemary Ross Rowan Rudy Rufus Rupert Rusty Sabrina Sadie Salvador Sammy Sandy Saul
Selma Serena Seth Shabana Shane Shannon Shelby Sheldon Sherman Sid Silas Simone Sonia Sonny Spencer Stan Stefan
Sterling Stewart Sue Sunny Sybil Tabitha Tamara Tanya Tara Terence Tess Thelma Theo Tobias Toby Trevor Trudy
Uma Ursula Val Vera Vernon Veronica Vic Viktor Vince Viola Violet Vivian Wade Wallace Walt Ward Wendell Wilbur
Wilfred Will Willis Winifred Winston Woody Xavier Yasmin Yolanda Yusuf Zach Zoe
"""
)

# -- what a name is: head nouns of "X is a/an ... NOUN" --------------------------------------------

PERSON_NOUNS = _words(
    """
physicist chemist biologist scientist mathematician philosopher writer author poet novelist playwright painter
artist sculptor photographer composer musician singer songwriter rapper guitarist drummer bassist pianist
violinist conductor actor actress comedian director filmmaker producer screenwriter presenter host broadcaster
journalist editor columnist critic politician president king queen prince princess emperor empress monarch
general admiral officer soldier commander engineer inventor physician surgeon doctor nurse economist historian
professor teacher educator researcher academic scholar businessman businesswoman entrepreneur executive
architect designer explorer athlete footballer player cricketer boxer wrestler swimmer cyclist skier golfer
runner sprinter coach manager jockey driver racer pilot astronaut lawyer attorney judge saint pope priest bishop
cardinal monk nun rabbi imam statesman diplomat ambassador senator governor mayor minister chancellor astronomer
geologist psychologist psychiatrist sociologist anthropologist linguist theologian activist model dancer
choreographer illustrator cartoonist animator youtuber personality socialite aristocrat nobleman noblewoman
lord lady duke duchess count countess baron knight spy criminal murderer pirate chef farmer merchant banker
investor philanthropist magician
    """
)
LOCATION_NOUNS = _words(
    """
city town village hamlet municipality commune borough suburb neighbourhood neighborhood district county
province state country nation region territory island islands archipelago peninsula river lake mountain
mountains hill valley bay gulf sea ocean strait canal desert forest park reserve capital metropolis
settlement parish township crater volcano glacier waterfall beach coast plateau
    """
)
ORGANIZATION_NOUNS = _words(
    """
company corporation firm business conglomerate manufacturer retailer chain brand label band group duo trio
quartet orchestra choir ensemble team club franchise league federation association society organization
organisation institution institute university college school academy agency ministry department council
committee party movement union airline airport newspaper publisher network broadcaster channel station studio
studios charity foundation hospital bank church order army navy regiment brigade division squadron police
restaurant brewery winery hotel
    """
)
# Nouns of named things that are none of the above (works, events, products): ``concept``.
WORK_NOUNS = _words(
    """
film movie documentary series show sitcom episode album song single ep soundtrack novel book play musical opera
poem magazine journal game video software app operating system language festival award prize war battle
election treaty ship aircraft car vehicle locomotive species genus
    """
)

# -- biomedicine -------------------------------------------------------------------------------------

# Single words that name a disease or symptom in any biomedical text.
DISEASE_WORDS = _words(
    """
cancer cancers tumor tumors tumour tumours malignancy malignancies neoplasm neoplasms metastasis metastases
leukemia leukaemia lymphoma melanoma carcinoma sarcoma glioma glioblastoma myeloma adenoma
diabetes obesity overweight hypertension hypotension hyperglycemia hypoglycemia hyperlipidemia dyslipidemia
asthma allergy allergies eczema psoriasis dermatitis arthritis osteoarthritis osteoporosis gout lupus
epilepsy seizure seizures convulsion convulsions stroke strokes migraine headache headaches dementia
schizophrenia depression anxiety autism psychosis delirium insomnia amnesia catalepsy dyskinesia dystonia
ataxia tremor tremors neuropathy neurodegeneration paralysis paresis spasticity
pain fever fatigue nausea vomiting diarrhea diarrhoea constipation anorexia cachexia malnutrition
infection infections sepsis pneumonia tuberculosis malaria influenza hepatitis cirrhosis fibrosis
anemia anaemia thrombosis embolism ischemia ischaemia infarction hemorrhage haemorrhage bleeding edema oedema
inflammation atherosclerosis arrhythmia tachycardia bradycardia fibrillation cardiomyopathy
proteinuria albuminuria hematuria polyuria nephropathy nephrotoxicity hepatotoxicity cardiotoxicity
neurotoxicity ototoxicity toxicity cytotoxicity retinopathy glaucoma cataract cataracts blindness deafness
hypothyroidism hyperthyroidism goiter goitre infertility obstruction injury injuries trauma
hypoxia hypothermia hyperthermia acidosis alkalosis jaundice syncope coma shock
    """
)
# Heads of multi-word disease names ("chronic kidney disease", "acute renal failure").
DISEASE_HEAD_WORDS = _words(
    """
disease diseases syndrome syndromes disorder disorders cancer cancers carcinoma carcinomas tumor tumors tumour
tumours infection infections fever failure injury injuries infarction hemorrhage haemorrhage insufficiency
dysfunction impairment impairments deficit deficits deficiency toxicity damage lesion lesions palsy dystrophy
atrophy sclerosis stenosis defect defects malformation malformations anomaly anomalies retardation loss pain
arrest attack edema oedema hypertension fibrillation prolongation agenesis ulcer ulcers inflammation
    """
)
# Word endings of disease names (lower-case words; "-itis", "-osis", ...). Weak ones need a
# lower-case word, strong ones also count at a sentence start.
DISEASE_SUFFIXES = (
    "itis",
    "osis",
    "iasis",
    "emia",
    "aemia",
    "uria",
    "oma",
    "omas",
    "pathy",
    "pathies",
    "algia",
    "plasia",
    "trophy",
    "plegia",
    "phrenia",
    "kinesia",
    "tonia",
    "lexia",
    "mnesia",
    "penia",
    "megaly",
    "rrhea",
    "rrhoea",
    "rrhage",
    "toxicity",
    "cytosis",
)
DISEASE_STOP = _words(
    """
diagnosis diagnoses prognosis hypnosis symbiosis osmosis apoptosis mitosis meiosis academia bohemia diploma
diplomas aroma aromas stoma soma coma sympathy empathy telepathy homeopathy naturopathy osteopathy trophy
trophies chromosoma idioma oklahoma sonoma tacoma paloma genoma stroma stromas endocytosis exocytosis
phagocytosis pinocytosis transcytosis efferocytosis eryptosis ferroptosis pyroptosis necroptosis anoikis
kinesia catatonia symphonia euphonia sinfonia entropy heterozygosis homozygosis gastrula blastoma
    """
)

# Animals and other organisms named by a common noun.
ORGANISM_WORDS = _words(
    """
mouse mice rat rats hamster hamsters guinea rabbit rabbits dog dogs cat cats pig pigs piglets sheep goat goats
cow cows cattle calves horse horses monkey monkeys macaque macaques primate primates chimpanzee chimpanzees
baboon baboons zebrafish chicken chickens chick chicks bird birds fish frog frogs xenopus worm worms nematode
nematodes fly flies yeast yeasts bacteria bacterium virus viruses fungi fungus plant plants
    """
)
# Words that name people as a species in biomedical text; all mentions map to one "Humans" entity.
HUMAN_WORDS = _words("human humans patient patients")

# Chemical elements and common inorganic compounds, written in lower case.
ELEMENT_WORDS = _words(
    """
hydrogen helium lithium beryllium boron carbon nitrogen oxygen fluorine neon sodium magnesium aluminum aluminium
silicon phosphorus sulfur sulphur chlorine argon potassium calcium scandium titanium vanadium chromium manganese
iron cobalt nickel copper zinc gallium germanium arsenic selenium bromine krypton rubidium strontium zirconium
molybdenum cadmium indium antimony iodine xenon cesium caesium barium platinum uranium plutonium radium
radon thallium bismuth polonium tungsten
chloride fluoride bromide iodide oxide hydroxide peroxide sulfide sulfate sulphate nitrate nitrite phosphate
carbonate bicarbonate cyanide ammonia ammonium ozone ethanol methanol alcohol glycerol urea creatinine
glutathione cholesterol triglyceride triglycerides glucose fructose sucrose lactose galactose maltose
dopamine serotonin melatonin adrenaline noradrenaline epinephrine norepinephrine acetylcholine histamine
glutamate gaba cortisol corticosterone testosterone estrogen estrogens oestrogen estradiol progesterone
caffeine nicotine cocaine heroin morphine codeine opium cannabis ethanol nitroglycerin
    """
)
# Drug-name stems (WHO INN) and chemical word endings; the strong ones name a drug even when
# capitalised at a sentence start ("Atorvastatin lowered ...").
STRONG_COMPOUND_SUFFIXES = (
    "amide",
    "mycin",
    "micin",
    "formin",
    "statin",
    "tinib",
    "fenib",
    "rafenib",
    "ciclib",
    "parib",
    "zomib",
    "lisib",
    "cillin",
    "cycline",
    "floxacin",
    "oxacin",
    "conazole",
    "prazole",
    "nidazole",
    "sartan",
    "olol",
    "dipine",
    "azepam",
    "azolam",
    "barbital",
    "caine",
    "profen",
    "fenac",
    "coxib",
    "gliptin",
    "gliflozin",
    "glitazone",
    "glutide",
    "semide",
    "thiazide",
    "triptan",
    "setron",
    "tidine",
    "dronate",
    "tecan",
    "taxel",
    "platin",
    "rubicin",
    "mustine",
    "trexate",
    "citabine",
    "udine",
    "ovir",
    "navir",
    "oxetine",
    "triptyline",
    "pramine",
    "apine",
    "peridol",
    "perazine",
    "promazine",
    "afil",
    "lukast",
    "terol",
    "olimus",
    "imod",
    "parin",
    "xaban",
    "gatran",
    "fungin",
    "oquine",
    "flurane",
    "fentanil",
    "fentanyl",
    "orphine",
    "codone",
    "morphone",
    "adol",
    "stigmine",
    "curium",
    "curonium",
    "zotocin",
    "amivir",
    "pril",
    "setron",
    "tropine",
    "phylline",
    "mab",
    "ximab",
    "zumab",
    "umab",
    "dopa",
    "oxin",
    "farin",
    "cortisone",
    "olone",
    "asone",
    "idone",
    "odone",
    "ethasone",
    "osteron",
    "sterone",
)
WEAK_COMPOUND_SUFFIXES = (
    "amide",
    "amine",
    "azine",
    "azole",
    "oside",
    "erol",
    "atrol",
    "anol",
    "diol",
    "sterol",
    "itol",
    "yrate",
    "ionate",
    "uvate",
    "phate",
    "lfate",
    "oate",
    "idine",
    "ytol",
    "amate",
    "actate",
    "olate",
    "cose",
    "tose",
    "nose",
    "bose",
    "ine",
    "ol",
    "yl",
)
# Endings of the weak kind, each with the minimum word length it needs (short words are English).
WEAK_SUFFIX_MIN = {"ine": 8, "ol": 7, "yl": 7, "olate": 8, "nose": 7}
COMPOUND_STOP = _words(
    """
examine examines examined reexamine determine determines undermine famine stamina pyramid protocol control
patrol symbol school consolidate update updates template templates mandate mandates climate palate magazine
magazines passionate compassionate affectionate proportionate disproportionate fashionable
medicine medicines discipline disciplines machine machines routine routines vaccine vaccines engine engines
examine determine combine combines combined decline declines declined define defines baseline baselines
guideline guidelines timeline online offline outline outlines underline deadline headline pipeline lifeline
borderline hairline mainline shrine sunshine doctrine marine submarine feminine masculine genuine intestine
alkaline saline pristine imagine imagines genuine porcupine quarantine trampoline gasoline
chocolate candidate candidates immediate intermediate ultimate approximate appropriate accurate inaccurate
adequate inadequate moderate considerate separate desperate private climate estimate estimates
demonstrate demonstrates indicate indicates associate associates evaluate evaluates investigate
investigates illustrate illustrates facilitate facilitates generate generates eliminate eliminates
regulate regulates stimulate stimulates correlate correlates elucidate elucidates anticipate participate
participates accumulate accumulates calculate calculates navigate translate translates fluctuate
substrate substrates vertebrate vertebrates invertebrate invertebrates primate primates
provide provides decide decides include includes exclude excludes conclude concludes override worldwide
nationwide genomewide collide divide divides guide guides inside outside provide suicide homicide
pesticide pesticides insecticide herbicide fungicide
someone anyone everyone phone telephone microphone backbone hormone hormones ozone cyclone component
components opponent exponent postpone milestone cornerstone keystone undergone
control controls protocol protocols cholesterol patrol symbol
purpose purposes suppose supposes propose proposes compose composes expose exposes dispose impose
diagnose diagnoses verbose glucose
protein proteins within margin origin origins cousin cabin basin latin robin satin toxin toxins domain
domains certain contain obtain maintain explain explains remain remains sustain
american african european russian indian christian median veterinarian guardian civilian physician
musician librarian historian mathematician statistician pediatrician clinician technician electrician
politician comedian meridian
medium stadium premium tedium criterium delirium equilibrium millennium consortium symposium auditorium
gene scene scenes serene gangrene hygiene terrene benzene polyethylene
vinyl
    """
)
# Protein heads: "<modifier> receptor", "growth hormone", "tyrosine kinase".
PROTEIN_HEADS = _words(
    """
receptor receptors transporter transporters kinase kinases phosphatase phosphatases synthase synthetase
oxidase reductase dehydrogenase hydroxylase transferase carboxylase decarboxylase peptidase protease
proteases ligase ligases channel channels exchanger cotransporter symporter antiporter pump factor factors
hormone hormones cytokine cytokines chemokine chemokines interleukin interferon antigen antibody antibodies
enzyme enzymes protein proteins peptide peptides
    """
)
# Modifiers that make a protein head generic, not a name ("risk factor", "transcription factor").
PROTEIN_HEAD_STOP = _words(
    """
risk transcription growth prognostic contributing confounding key major main important several many other
these those such this that the a an some any their its our new novel specific various multiple different
additional potential critical major minor single total whole
    """
)
# Cues that a text is biomedical (gene-like symbols are then trusted without a cue of their own).
BIO_CUES = _words(
    """
gene genes protein proteins expression mrna cell cells patients patient mice mouse rats rat clinical disease
diseases tumor tumour cancer receptor receptors kinase mutation mutations enzyme serum plasma tissue tissues
treatment therapy dose doses drug drugs inhibitor inhibitors antibody antibodies phosphorylation transcription
pathway pathways metabolism syndrome infection bacteria bacterial vitro vivo mutant mutants
    """
)
# Context words after which an unknown lower-case word is a compound ("treated with X").
DRUG_CONTEXT_BEFORE = (
    "treated with",
    "treatment with",
    "administration of",
    "administered",
    "doses of",
    "dose of",
    "infusion of",
    "injection of",
    "exposure to",
    "exposed to",
    "given",
    "received",
    "receiving",
    "intake of",
    "concentrations of",
    "levels of",
    "supplemented with",
    "supplementation with",
    "pretreated with",
    "pretreatment with",
    "combination of",
    "combined with",
)

# -- general text -------------------------------------------------------------------------------------

# Nationality and regional adjectives: "a South Korean film" names no entity.
DEMONYMS = _words(
    """
American British English French German Polish Italian Spanish Portuguese Dutch Swedish Norwegian Danish
Finnish Russian Austrian Hungarian Czech Greek Turkish Chinese Japanese Korean Indian African Asian European
Canadian Mexican Brazilian Australian Irish Scottish Welsh Swiss Belgian Roman Latin Arabic Persian Jewish
Christian Muslim Catholic Protestant Western Eastern Northern Southern Gram Argentine Argentinian Chilean
Colombian Peruvian Venezuelan Cuban Jamaican Haitian Nigerian Ghanaian Kenyan Ethiopian Egyptian Moroccan
Algerian Tunisian Libyan Sudanese Somali Ugandan Tanzanian Zimbabwean Iranian Iraqi Syrian Lebanese Israeli
Palestinian Jordanian Saudi Emirati Afghan Pakistani Bangladeshi Nepalese Sri Lankan Burmese Thai Vietnamese
Cambodian Malaysian Indonesian Filipino Singaporean Taiwanese Mongolian Tibetan Ukrainian Belarusian Romanian
Bulgarian Serbian Croatian Slovenian Slovak Bosnian Albanian Macedonian Lithuanian Latvian Estonian Icelandic
Georgian Armenian Azerbaijani Kazakh Uzbek Soviet Yugoslav Prussian Bavarian Flemish Catalan Basque Sicilian
Venetian Tuscan Neapolitan Corsican Breton Cornish Texan Californian Hawaiian Alaskan Quebecois Anglo Franco
Hispanic Nordic Scandinavian Baltic Slavic Celtic Germanic Byzantine Ottoman Victorian Elizabethan Edwardian
Georgian Medieval Hindu Buddhist Sikh Islamic Orthodox Anglican Lutheran Methodist Baptist Evangelical
Republican Democratic Democrat Conservative Liberal Labour Socialist Communist Marxist Olympic Paralympic
Arctic Antarctic Atlantic Pacific Mediterranean Caribbean Oceanic Continental Federal National International
Kiwi Aussie Dominican Puerto Rican Salvadoran Guatemalan Honduran Nicaraguan Panamanian Bolivian Ecuadorian
Paraguayan Uruguayan Senegalese Malian Cameroonian Congolese Angolan Mozambican Zambian Namibian Rwandan
    """
)
# Capitalised common words that begin sentences, label things or stand in titles, but name nothing
# on their own ("Life", "World", "Records", "President").
GENERIC_CAPITALISED = _words(
    """
life world time home people man woman men women boy boys girl girls children child family love music art
science history culture nature society education government state states city country king queen prince
princess president minister premier leader chief captain general emperor empress pope saint lord lady sir
senator governor mayor chairman director manager coach head member members party game games show series
season episode album song single record records film films movie book novel story stories news radio
television network channel station league cup championship tournament award awards prize medal final finals
division conference club team band group company corporation office department ministry council committee
court house senate congress parliament assembly church school college university hospital museum library
park street road bridge tower hall castle palace island islands river lake mountain valley forest
north south east west northern southern eastern western central upper lower new old great grand little
big top first second third last next best live dead death war peace battle army navy force forces air sea
land gold silver bronze black white red blue green day night summer winter spring autumn year years age
century era period internet web online software computer program programme system systems version edition
project report study research theory law act bill order rule power energy money market trade industry
business economy service services product products brand model models type types level levels part parts
number numbers list index code data information media press print paper papers letter letters word words
name names title titles language languages religion god gods heaven hell devil angel spirit soul mind body
heart blood fire water earth wind light dark darkness star stars sun moon sky space planet universe
christmas easter olympics census anatomy physics chemistry biology mathematics medicine philosophy
economics politics sports sport football soccer baseball basketball hockey tennis golf boxing racing
champion champions hero heroes legend legends master masters star stars idol icon
    """
)
# Honorifics and offices written before a name ("President Chiang", "Dr. Smith"); words that also
# begin names of other things ("General Motors", "Saint Louis") are not among them.
PERSON_TITLES = _words(
    """
Dr Prof Professor Mr Mrs Ms Miss Mme Sir Dame Lord Lady President King Queen Prince Princess Pope Senator
Governor Emperor Empress Sultan Tsar Czar Rev Reverend Sheikh Bishop Cardinal Archbishop Chancellor Mayor
Rabbi Imam Duke Duchess Earl Baron Baroness Countess Colonel Lieutenant Sergeant Admiral
    """
)
# Last words of organisation names ("Marvel Comics", "National Football League", "Pizza Hut").
ORG_LAST = _words(
    """
University Institute Institutes Inc Corp Corporation Company Co Ltd LLC PLC plc GmbH AG Foundation Association
Society Agency Council Ministry Hospital College Laboratory Laboratories Center Centre Organization
Organisation Bank Pharmaceuticals Therapeutics Biosciences Academy Commission Committee Department Union Party
Club League Conference Federation Network Networks Records Recordings Comics Pictures Studios Studio
Entertainment Media Press Publishing Publishers Group Airlines Airways Airlines Railway Railways Motors
Systems Technologies Software Games Broadcasting Television Channel Bureau Service Services Trust Fund Fund
Orchestra Band Ensemble Choir Theatre Theater Museum Gallery Library School Seminary Brewery Magazine Times
Post Herald Tribune Gazette Daily Journal Chronicle Observer Telegraph Guardian Army Navy Corps Police
Brigade Regiment Division Battalion Squadron Church Cathedral Abbey Monastery Parliament Senate Congress
Assembly Court Cabinet Council Government Administration Alliance Coalition FC AFC Athletic Athletics Rangers Rovers Wanderers Hotspur Albion Hut
Animation Industries Holdings Partners Associates Capital Ventures Labs Electronics Foods Stores Cinemas Productions
    """
)
ORG_FIRST = _words(
    "University Institute Bank Church Museum College Ministry Department House Government Council Order Society"
)
LOCATION_FIRST = _words(
    "Lake Mount Mt Gulf Bay Cape Isle Port Fort Saint St Sierra Rio Republic Kingdom Duchy Principality Province "
    "County Isles Strait Sea Ocean Gulf"
)
